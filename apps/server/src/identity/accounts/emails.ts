/** How an address is compared: the same mailbox however its letters were cased when typed. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

/** The domain of an address, lower case: which organization's single sign-on it belongs to. */
export function emailDomain(email: string): string {
  return emailKey(email).split('@').pop()!;
}
