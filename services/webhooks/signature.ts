/** What history keeps of a signature: enough to tell two apart, not enough to replay one. */
export function truncateSignature(header: string): string {
  return header.replace(/v1=([0-9a-f]{8})[0-9a-f]*/, 'v1=$1…');
}
