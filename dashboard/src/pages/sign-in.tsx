import { api } from '../api/client';
import type { Session } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { Link } from '../components/link';
import { ErrorMessage } from '../components/messages';
import { useSubmit } from '../components/use-submit';
import { navigate } from '../router';
import { remember, useSession } from '../session';

export function SignInPage({ next }: { next?: string }) {
  const { set } = useSession();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    set(remember(await api.post<Session>('/sign-in', { email: v.email, password: v.password })));
    navigate(next && next.startsWith('/') && !next.startsWith('//') ? next : '/', { replace: true });
  });
  return (
    <AuthCard title="Sign in">
      <form onSubmit={onSubmit}>
        <Field id="email" label="Email">
          <input id="email" name="email" type="email" autocomplete="username" required />
        </Field>
        <Field id="password" label="Password">
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </Field>
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p>
        <Link to="/reset">Forgot your password?</Link>
      </p>
      <p>
        New here? <Link to="/register">Create an account</Link>
      </p>
    </AuthCard>
  );
}
