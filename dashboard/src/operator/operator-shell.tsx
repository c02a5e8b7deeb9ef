import type { ComponentChildren } from 'preact';
import { api, setCsrfToken } from '../api/client';
import { Frame, NavList } from '../components/frame';

// The operator console's frame: the same layout as a merchant's (header, navigation, main) with
// its own pages and a banner saying whose console this is.

const NAV = [
  { to: '/operator', text: 'Verification queue' },
  { to: '/operator/merchants', text: 'Merchants' },
  { to: '/operator/audit-log', text: 'Audit log' },
];

export function OperatorShell(props: { path: string; onSignedOut(): void; children: ComponentChildren }) {
  const out = async () => {
    await api.post('/operator/sign-out').catch(() => undefined);
    setCsrfToken(undefined);
    props.onSignedOut();
  };
  return (
    <Frame
      class="shell operator"
      header={
        <>
          <span class="brand">Operator console</span>
          <button type="button" class="secondary" onClick={out}>
            Sign out
          </button>
        </>
      }
      notes={
        <p class="test-banner" role="note">
          Operator console: decisions here apply to every merchant of this deployment and are audited.
        </p>
      }
      navLabel="Operator console"
      nav={<NavList items={NAV} isCurrent={(to) => props.path === to} />}
    >
      {props.children}
    </Frame>
  );
}
