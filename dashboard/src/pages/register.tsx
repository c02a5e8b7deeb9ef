import { api } from '../api/client';
import type { Session } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { Field } from '../components/field';
import { Link } from '../components/link';
import { ErrorMessage } from '../components/messages';
import { NewPasswordField } from '../components/password-field';
import { useSubmit } from '../components/use-submit';
import { navigate } from '../router';
import { remember, useSession } from '../session';

// Registration creates the merchant, its default project and test mode, and signs in at once.

export function RegisterPage() {
  const { set } = useSession();
  const { busy, error, onSubmit } = useSubmit(async (v) => {
    const session = await api.post<Session>('/register', {
      merchant_name: v.merchant_name, email: v.email, password: v.password,
    });
    set(remember(session));
    navigate('/developers/api-keys', { replace: true });
  });
  return (
    <AuthCard title="Create your account">
      <form onSubmit={onSubmit}>
        <Field id="merchant_name" label="Business name">
          <input id="merchant_name" name="merchant_name" autocomplete="organization" required maxLength={200} />
        </Field>
        <Field id="email" label="Email">
          <input id="email" name="email" type="email" autocomplete="email" required />
        </Field>
        <NewPasswordField label="Password" hint="At least 10 characters." />
        <ErrorMessage error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create account'}
        </button>
      </form>
      <p>
        Already registered? <Link to="/sign-in">Sign in</Link>
      </p>
    </AuthCard>
  );
}
