import { api } from '../api/client';
import type { Session } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { ErrorMessage } from '../components/messages';
import { NewPasswordField } from '../components/password-field';
import { useSubmit } from '../components/use-submit';
import { navigate } from '../router';
import { remember, useSession } from '../session';

// An owner sign-in link, printed by `npm start`'s first start or by `svc merchant sign-in-link`:
// whoever opens it becomes an owner of that merchant (the one the printed test key belongs to) and
// chooses here the email and password they sign in with from then on. Posted on a click, never on
// load, like the mailed links' pages.

export function OwnerLinkPage({ token }: { token: string }) {
  const { set } = useSession();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    set(remember(await api.post<Session>('/owner-link/accept', { token, email: v.email, password: v.password })));
    navigate('/', { replace: true });
  });
  return (
    <AuthCard title="Sign in as the merchant's owner">
      <form onSubmit={onSubmit}>
        <p>This link works once. Choose the email and password you will sign in with from now on.</p>
        <Field id="email" label="Email">
          <input id="email" name="email" type="email" autocomplete="email" required />
        </Field>
        <NewPasswordField label="Password" hint="At least 10 characters; if this email already has an account, its password." />
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy || !token}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </AuthCard>
  );
}
