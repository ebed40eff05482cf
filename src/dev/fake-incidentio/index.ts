export { alertEventErrors, FakeIncidentIo, type FakeIncidentIoAlert, type FakeIncidentIoRequest } from './fake-incidentio.js';
