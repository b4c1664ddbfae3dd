import { z } from 'zod';
import { errorResponses } from '../errors.js';
import { SEGMENT_NESTING_MAX } from '../limits.js';
import { DeleteSegmentRequest } from '../schemas/lifecycle.js';
import {
  ReplaceTargetIdsRequest,
  TargetIdContains,
  TargetIdListQuery,
  TargetIdPage,
  TargetIdsAdded,
  TargetIdsCount,
  TargetIdsRemoved,
  TargetIdsRequest,
} from '../schemas/rollouts.js';
import { CreateSegmentRequest, Segment, SegmentReferrers, UpdateSegmentRequest } from '../schemas/segments.js';
import { c, ConditionalGetHeaders, ConditionalMutationHeaders, MutationHeaders, type RouteMetadata } from './common.js';

const one = '/projects/:id/segments/:key' as const;
const writes =
  'Advances the version (and ETag) of every environment of the project whose flags or configs use the segment, directly or through other segments, so streaming SDKs receive it like any other write. Approval-required keys get `403 approval_not_supported`; an API key restricted to environments gets `403 token_env_out_of_scope` (a segment reaches every environment).';

/** The bulk endpoints of one of a segment's two target-ID lists, shaped like a rollout's allow-list. */
function targetListRoutes<L extends 'included' | 'excluded'>(list: L) {
  const base = `${one}/${list}` as const;
  return {
    add: {
      method: 'POST',
      path: `${base}/add` as const,
      summary: `Add target IDs to a segment's ${list} list`,
      description: `Up to 100,000 IDs per request; duplicates are ignored and \`added\` counts only new IDs. Audit action \`segment.target_ids_added\`. ${writes}`,
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsAdded, ...errorResponses(400, 401, 403, 404, 413) },
    },
    remove: {
      method: 'POST',
      path: `${base}/remove` as const,
      summary: `Remove target IDs from a segment's ${list} list`,
      description: `Up to 100,000 IDs per request; absent IDs are skipped. Audit action \`segment.target_ids_removed\`. ${writes}`,
      body: TargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsRemoved, ...errorResponses(400, 401, 403, 404, 413) },
    },
    replace: {
      method: 'POST',
      path: `${base}/replace` as const,
      summary: `Replace a segment's whole ${list} list atomically`,
      description: `Up to 1,000,000 IDs (request bodies of the target-ID endpoints may reach 64 MiB). Audit action \`segment.target_ids_replaced\`. ${writes}`,
      body: ReplaceTargetIdsRequest,
      headers: MutationHeaders,
      responses: { 200: TargetIdsCount, ...errorResponses(400, 401, 403, 404, 413) },
    },
    list: {
      method: 'GET',
      path: base,
      summary: `List a segment's ${list} target IDs, ordered by ID`,
      description: '`limit` 1–10,000 (default 1000); `nextCursor` is present only when the page is full.',
      query: TargetIdListQuery,
      responses: { 200: TargetIdPage, ...errorResponses(400, 401, 403, 404) },
    },
    contains: {
      method: 'GET',
      path: `${base}/contains/:targetId` as const,
      summary: `Whether an ID is on a segment's ${list} list`,
      responses: { 200: TargetIdContains, ...errorResponses(401, 403, 404) },
    },
  } as const;
}

const included = targetListRoutes('included');
const excluded = targetListRoutes('excluded');

export const segmentsContract = c.router({
  createSegment: {
    method: 'POST',
    path: '/projects/:id/segments',
    summary: 'Create a segment',
    description:
      `At most 500 segments per project (\`403 quota_exceeded\`, dimension \`segments_per_project\`). Conditions may reference other segments of the project with \`in_segment\` / \`not_in_segment\`: a missing one is \`400\` naming the field, a reference that closes a cycle is \`409 segment_cycle\` with the cycle in \`details.cycle\`, and one that would nest more than ${SEGMENT_NESTING_MAX} segments (\`a\` names \`b\` names \`c\` …) is \`409 segment_nesting_too_deep\` with the chain in \`details.chain\`. Audit action \`segment.created\`. Approval-required keys get \`403 approval_not_supported\`.`,
    body: CreateSegmentRequest,
    headers: MutationHeaders,
    responses: { 201: Segment, ...errorResponses(400, 401, 403, 404, 409) },
  },
  listSegments: {
    method: 'GET',
    path: '/projects/:id/segments',
    summary: 'List the segments of a project',
    responses: { 200: z.array(Segment), ...errorResponses(401, 403, 404) },
  },
  getSegment: {
    method: 'GET',
    path: one,
    summary: 'Get a segment',
    description: 'Sends a strong ETag for `If-Match`; `If-None-Match` answers 304.',
    headers: ConditionalGetHeaders,
    responses: { 200: Segment, 304: c.noBody(), ...errorResponses(401, 403, 404) },
    metadata: { etag: true } satisfies RouteMetadata,
  },
  updateSegment: {
    method: 'PATCH',
    path: one,
    summary: 'Rename a segment or replace its rules',
    description: `A reference that closes a cycle is \`409 segment_cycle\` with the cycle in \`details.cycle\` (\`["a", "b", "a"]\`); one that would nest more than ${SEGMENT_NESTING_MAX} segments is \`409 segment_nesting_too_deep\` with the chain in \`details.chain\`. \`If-Match\` with the segment's ETag guards against lost updates (\`412 precondition_failed\`). Audit action \`segment.updated\`. ${writes}`,
    body: UpdateSegmentRequest,
    headers: ConditionalMutationHeaders,
    responses: { 200: Segment, ...errorResponses(400, 401, 403, 404, 409, 412) },
  },
  deleteSegment: {
    method: 'DELETE',
    path: one,
    summary: 'Delete a segment',
    description:
      'Refused while a flag or config (in any environment) or another segment references it: `409 in_use` with each referrer in `fields` as `<resourceType>.<resourceKey>` (`flag.new-checkout`, `segment.beta`). The body repeats the key: `{"confirm": "<segment key>"}` (`400 invalid_confirmation`). Its target IDs go with it. Audit action `segment.deleted`. Approval-required keys get `403 approval_not_supported`.',
    body: DeleteSegmentRequest,
    headers: ConditionalMutationHeaders,
    responses: { 204: c.noBody(), ...errorResponses(400, 401, 403, 404, 409, 412) },
    metadata: { optionalBody: true } satisfies RouteMetadata,
  },
  getSegmentReferrers: {
    method: 'GET',
    path: `${one}/referrers`,
    summary: 'What references a segment',
    description: 'The flags and configs whose rules (in any environment) and the segments whose rules name it.',
    responses: { 200: SegmentReferrers, ...errorResponses(401, 403, 404) },
  },
  addSegmentIncluded: included.add,
  removeSegmentIncluded: included.remove,
  replaceSegmentIncluded: included.replace,
  listSegmentIncluded: included.list,
  checkSegmentIncluded: included.contains,
  addSegmentExcluded: excluded.add,
  removeSegmentExcluded: excluded.remove,
  replaceSegmentExcluded: excluded.replace,
  listSegmentExcluded: excluded.list,
  checkSegmentExcluded: excluded.contains,
});
