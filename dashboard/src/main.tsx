import { render } from 'preact';
import { App } from './app';
import { OperatorApp } from './operator/operator-app';
import { currentPath } from './router';
import './styles.css';

// Two areas of one app: the operator console under /dashboard/operator (its own sign-in and
// session), and the merchants' dashboard everywhere else. No link crosses between them.
const operator = currentPath() === '/operator' || currentPath().startsWith('/operator/');
render(operator ? <OperatorApp /> : <App />, document.getElementById('app')!);
