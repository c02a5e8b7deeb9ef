import { api } from '../api/client';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';
import type { OperatorSession } from './types';

// Operators sign in with the deployment's OPERATOR_TOKEN; the server answers a session cookie of
// the console's own (the token itself is not kept by the page).

export function OperatorSignIn(props: { onSignedIn(session: OperatorSession): void }) {
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    props.onSignedIn(await api.post<OperatorSession>('/operator/sign-in', { token: v.token }));
  });
  return (
    <AuthCard title="Operator console">
      <p>For the deployment's operators. Merchants sign in on the dashboard's own page.</p>
      <form onSubmit={onSubmit}>
        <Field id="operator-token" label="Operator token" hint="The deployment's OPERATOR_TOKEN.">
          <input id="operator-token" name="token" type="password" autocomplete="off" required aria-describedby="operator-token-hint" />
        </Field>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </AuthCard>
  );
}
