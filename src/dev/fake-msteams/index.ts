export { FakeMSTeams, MAX_MESSAGE_BYTES, teamsMessageError, type FakeTeamsPost } from './fake-msteams.js';
