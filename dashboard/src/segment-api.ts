import type { Rule, Segment } from '@gradual/sdk';
import { api } from './api';
import type { IdListOps } from './components/TargetIds';

/** A segment with the ETag that guards its changes and its delete. */
export interface LoadedSegment {
  segment: Segment;
  etag: string | undefined;
}

/**
 * One segment's calls: read with its ETag, rename, replace its rules, delete (typed key), its
 * referrers, and its included and excluded ID lists in the shape the ID-list editor takes.
 */
export function segmentApi(projectId: string, key: string) {
  const a = api();
  const path = { id: projectId, key };
  const ifMatch = (etag: string | undefined) => (etag ? { 'if-match': etag } : {});
  const lists: Record<'included' | 'excluded', IdListOps> = {
    included: {
      add: (targetIds) => a.addSegmentIncluded({ path, body: { targetIds } }),
      remove: (targetIds) => a.removeSegmentIncluded({ path, body: { targetIds } }),
      replace: (targetIds) => a.replaceSegmentIncluded({ path, body: { targetIds } }),
      list: (cursor, limit) => a.listSegmentIncluded({ path, query: { cursor, limit } }),
      contains: (targetId) => a.checkSegmentIncluded({ path: { ...path, targetId } }),
    },
    excluded: {
      add: (targetIds) => a.addSegmentExcluded({ path, body: { targetIds } }),
      remove: (targetIds) => a.removeSegmentExcluded({ path, body: { targetIds } }),
      replace: (targetIds) => a.replaceSegmentExcluded({ path, body: { targetIds } }),
      list: (cursor, limit) => a.listSegmentExcluded({ path, query: { cursor, limit } }),
      contains: (targetId) => a.checkSegmentExcluded({ path: { ...path, targetId } }),
    },
  };
  return {
    get: async (): Promise<LoadedSegment> => {
      const r = await a.withResponse.getSegment({ path });
      if (r.notModified) throw new Error('The server answered 304 to a request without If-None-Match.');
      return { segment: r.data, etag: r.response.headers.get('etag') ?? undefined };
    },
    update: (body: { name?: string; description?: string | null; rules?: Rule[] }, etag: string | undefined): Promise<Segment> =>
      a.updateSegment({ path, body, headers: ifMatch(etag) }),
    remove: (confirm: string, etag: string | undefined): Promise<void> => a.deleteSegment({ path, body: { confirm }, headers: ifMatch(etag) }),
    referrers: async (): Promise<string[]> => (await a.getSegmentReferrers({ path })).referrers,
    lists,
  };
}
export type SegmentApi = ReturnType<typeof segmentApi>;
