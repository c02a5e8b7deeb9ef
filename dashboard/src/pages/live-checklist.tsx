import { Link } from '../components/link';
import { StatusBadge } from '../components/status-badge';
import { useSignedIn } from '../session';

// What live mode shows until the business is verified: the steps left, and where to take them.

export function LiveChecklist() {
  const session = useSignedIn();
  const status = session.merchant.verification_status ?? 'not_submitted';
  const submitted = status === 'pending' || status === 'approved';
  return (
    <>
      <h1>Before you go live</h1>
      <p>Live mode moves real money, so it opens once your business is verified. Test mode works meanwhile.</p>
      <ol class="checklist">
        <li class="done">Account created</li>
        <li class={submitted ? 'done' : undefined}>
          Submit your company's details and documents: <Link to="/settings/verification">Verification</Link>{' '}
          <StatusBadge status={status} />
        </li>
        <li>An operator approves the verification</li>
        <li>Create a live API key and connect a provider account</li>
      </ol>
    </>
  );
}
