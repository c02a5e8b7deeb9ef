import { api } from '../api/client';
import type { Session } from '../api/types';
import { AuthCard } from '../components/auth-card';
import { LinkPasswordForm } from '../components/password-field';
import { navigate } from '../router';
import { remember, useSession } from '../session';

// An invited member joins the merchant with the role they were invited with: a new account chooses
// its password here; an email that already has an account accepts with that account's password.

export function AcceptInvitationPage({ token }: { token: string }) {
  const { set } = useSession();
  const accept = async (password: string) => {
    set(remember(await api.post<Session>('/invitations/accept', { token, password })));
    navigate('/', { replace: true });
  };
  return (
    <AuthCard title="Join your team">
      <LinkPasswordForm token={token} label="Password" hint="At least 10 characters; if this email already has an account, its password."
        submit="Accept invitation" action={accept} />
    </AuthCard>
  );
}
