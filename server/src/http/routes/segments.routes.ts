import type { ServerInferRequest } from '@ts-rest/core';
import { initServer } from '@ts-rest/express';
import { contract, type SegmentTargetList } from '@gradual/contract';
import type { Request, Response } from 'express';
import type { AppDeps } from '../../deps.js';
import { editSegmentList, listSegmentTargetIds, segmentListContains } from '../../features/segments/segment-lists.service.js';
import { createSegment, deleteSegment, getSegment, getSegmentReferrers, listSegments, updateSegment } from '../../features/segments/segments.service.js';
import { admit, type AdmissionRequest } from '../admission.js';
import { notModified } from '../etag.js';

const s = initServer();

type Segments = typeof contract.segments;
/** What the handler of an included-list route `I` and of its excluded twin `E` receives (either route's input, as ts-rest types it). */
type Input<I extends keyof Segments, E extends keyof Segments> = (ServerInferRequest<Segments[I]> | ServerInferRequest<Segments[E]>) & {
  req: AdmissionRequest & Pick<Request, 'em'>;
  res: Response;
};

/** The five handlers of one of a segment's target-ID lists (both lists bind the same ones). */
function listHandlers(deps: AppDeps, list: SegmentTargetList) {
  return {
    add: async ({ req, res, params, body }: Input<'addSegmentIncluded', 'addSegmentExcluded'>) => ({
      status: 200 as const,
      body: await editSegmentList(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, list, 'add', body.targetIds),
    }),
    remove: async ({ req, res, params, body }: Input<'removeSegmentIncluded', 'removeSegmentExcluded'>) => ({
      status: 200 as const,
      body: await editSegmentList(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, list, 'remove', body.targetIds),
    }),
    replace: async ({ req, res, params, body }: Input<'replaceSegmentIncluded', 'replaceSegmentExcluded'>) => ({
      status: 200 as const,
      body: await editSegmentList(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, list, 'replace', body.targetIds),
    }),
    list: async ({ req, res, params, query }: Input<'listSegmentIncluded', 'listSegmentExcluded'>) => ({
      status: 200 as const,
      body: await listSegmentTargetIds(req.em, await admit(req, res, deps), params.id, params.key, list, query),
    }),
    contains: async ({ req, res, params }: Input<'checkSegmentIncluded', 'checkSegmentExcluded'>) => ({
      status: 200 as const,
      body: await segmentListContains(req.em, await admit(req, res, deps), params.id, params.key, list, params.targetId),
    }),
  };
}

export const segmentsRoutes = (deps: AppDeps) => {
  const included = listHandlers(deps, 'included');
  const excluded = listHandlers(deps, 'excluded');
  return s.router(contract.segments, {
    createSegment: async ({ req, res, params, body }) => ({
      status: 201,
      body: await createSegment(req.em, await admit(req, res, deps), deps.bus, params.id, body),
    }),
    listSegments: async ({ req, res, params }) => ({
      status: 200,
      body: await listSegments(req.em, await admit(req, res, deps), params.id),
    }),
    getSegment: async ({ req, res, params }) => {
      const body = await getSegment(req.em, await admit(req, res, deps), params.id, params.key);
      return notModified(req, res, body) ? { status: 304, body: undefined } : { status: 200, body };
    },
    updateSegment: async ({ req, res, params, body, headers }) => ({
      status: 200,
      body: await updateSegment(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, body, headers['if-match']),
    }),
    deleteSegment: async ({ req, res, params, body, headers }) => {
      await deleteSegment(req.em, await admit(req, res, deps), deps.bus, params.id, params.key, body?.confirm, headers['if-match']);
      return { status: 204, body: undefined };
    },
    getSegmentReferrers: async ({ req, res, params }) => ({
      status: 200,
      body: await getSegmentReferrers(req.em, await admit(req, res, deps), params.id, params.key),
    }),
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
};
