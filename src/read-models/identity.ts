/** The identity read model's projection name: what an identity command waits for before it answers. */
export const IDENTITY_PROJECTION = 'identity';
