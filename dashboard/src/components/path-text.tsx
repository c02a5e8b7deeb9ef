// An API path in a table cell ("/v1/payments/pay_…/refund"): it may fold before a slash, never inside
// an id, so a long path does not widen its column to the whole line.

export function PathText(props: { path: string }) {
  const segments = props.path.split('/');
  return (
    <code class="path">
      {segments.map((s, i) => (i === 0 ? s : <><wbr />/{s}</>))}
    </code>
  );
}
