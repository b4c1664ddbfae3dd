import type { Proposal } from '@gradual/sdk';
import type { Output } from './output.js';

/**
 * Prints proposals: an approval-required API key's mutation is stored for an admin to apply
 * (202) instead of being applied. The command still succeeds (exit code 0).
 */
export function reportProposals(out: Output, proposals: Proposal[]): void {
  out.result({ proposed: true, proposals }, () =>
    proposals.map((p) => `proposal ${p.id} waits for approval (${p.kind} on ${p.resourceType} ${p.resourceKey}, expires ${p.expiresAt})`).join('\n'),
  );
}
