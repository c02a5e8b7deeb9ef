import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { navigate } from '../router';
import { signOut, useSignedIn, useSession } from '../session';
import { ConfirmDialog } from './confirm-dialog';
import { Frame, NavList } from './frame';
import { ModeSwitch } from './mode-switch';

// The signed-in frame: a skip link, the header with the merchant, the test/live switch and sign-out,
// and the navigation (a side bar when wide, a menu button when narrow).

interface NavItem {
  to: string;
  text: string;
}

const NAV: { heading?: string; items: NavItem[] }[] = [
  { items: [{ to: '/', text: 'Home' }, { to: '/payments', text: 'Payments' }, { to: '/disputes', text: 'Disputes' }] },
  {
    heading: 'Money',
    items: [
      { to: '/balances', text: 'Balances' },
      { to: '/payouts', text: 'Payouts' },
      { to: '/settlements', text: 'Settlements' },
      { to: '/transactions', text: 'Transactions' },
    ],
  },
  {
    heading: 'Developers',
    items: [
      { to: '/developers/api-keys', text: 'API keys' },
      { to: '/developers/webhooks', text: 'Webhook endpoints' },
      { to: '/developers/deliveries', text: 'Deliveries' },
      { to: '/developers/request-log', text: 'Request log' },
      { to: '/developers/sandbox', text: 'Sandbox' },
    ],
  },
  {
    heading: 'Settings',
    items: [
      { to: '/settings/allow-list', text: 'IP allow-list' },
      { to: '/settings/provider-accounts', text: 'Provider accounts' },
      { to: '/settings/routing', text: 'Routing' },
      { to: '/settings/team', text: 'Team' },
      { to: '/settings/verification', text: 'Verification' },
    ],
  },
];

function isCurrent(to: string, path: string): boolean {
  return to === '/' ? path === '/' : path === to || path.startsWith(`${to}/`);
}

export function Shell(props: { path: string; children: ComponentChildren }) {
  const session = useSignedIn();
  const { set } = useSession();
  const [everywhere, setEverywhere] = useState(false);

  const out = async () => {
    await signOut().catch(() => undefined);
    set(null);
    navigate('/sign-in');
  };
  // Ends every session of the user (a lost laptop, a shared computer), this one included.
  const outEverywhere = async () => {
    await signOut(true);
    set(null);
    navigate('/sign-in');
  };

  return (
    <Frame
      class={`shell mode-${session.mode}`}
      header={
        <>
          <span class="brand">{session.merchant.name}</span>
          <ModeSwitch />
          <span class="who muted">
            {session.user.email} · {session.role.replace('_', '-')}
          </span>
          <span class="account actions">
            <SignOutButtons out={out} everywhere={() => setEverywhere(true)} />
          </span>
        </>
      }
      notes={
        <>
          {everywhere && (
            <ConfirmDialog title="Sign out everywhere?" confirmLabel="Sign out everywhere" onClose={() => setEverywhere(false)} onConfirm={outEverywhere}>
              <p>Every browser signed in as {session.user.email}, this one included, is signed out.</p>
            </ConfirmDialog>
          )}
          {session.mode === 'test' && (
            <p class="test-banner" role="note">
              Test mode: payments are simulated against demo providers.
            </p>
          )}
        </>
      }
      navLabel="Dashboard"
      nav={
        <>
          {NAV.map((group) => (
            <div key={group.heading ?? 'main'}>
              {group.heading && <h2 class="nav-heading">{group.heading}</h2>}
              <NavList items={group.items} isCurrent={(to) => isCurrent(to, props.path)} />
            </div>
          ))}
          {/* Narrow screens: the header keeps one row, so who is signed in and signing out live in the menu. */}
          <div class="nav-account">
            <span class="muted small">{session.user.email} · {session.role.replace('_', '-')}</span>
            <SignOutButtons out={out} everywhere={() => setEverywhere(true)} />
          </div>
        </>
      }
    >
      {props.children}
    </Frame>
  );
}

function SignOutButtons(props: { out(): void; everywhere(): void }) {
  return (
    <>
      <button type="button" class="secondary" onClick={props.out}>
        Sign out
      </button>
      <button type="button" class="secondary" onClick={props.everywhere}>
        Sign out everywhere
      </button>
    </>
  );
}
