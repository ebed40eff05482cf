export { chatMessageError, FakeGoogleChat, MAX_MESSAGE_BYTES, type FakeChatMessage, type FakeChatPost } from './fake-googlechat.js';
