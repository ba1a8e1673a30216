import { render } from 'preact';
import { createApi } from './api/client';
import { App } from './app';
import { Session } from './session/session';
import './styles.css';

const session = new Session();
const api = createApi(session);
render(<App session={session} api={api} />, document.getElementById('app')!);
void session.restore();
