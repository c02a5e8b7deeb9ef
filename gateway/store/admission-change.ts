// What a change to a key, project or merchant tells the admission caches (key-cache.ts): the one
// entry to drop, or '*' for everything. Its own file because the stores that make changes and the
// cache that drops them both need it.

export type AdmissionChange = { kind: 'key' | 'project' | 'merchant'; id: string } | '*';
