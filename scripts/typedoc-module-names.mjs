/**
 * TypeDoc plugin for the SDK's API reference (sdk/typedoc.json): names each entry module by the
 * import path a user writes (`@gradual/sdk`, `@gradual/sdk/evaluation`…) instead of the name
 * TypeDoc derives from its file (`index`, `evaluation`…).
 */
import { Converter, ReflectionKind } from 'typedoc';

/** TypeDoc's name of each entry module (sdk/src/index.ts → `index`) → the import path. */
const IMPORT_PATHS = new Map([
  ['index', '@gradual/sdk'],
  ['evaluation', '@gradual/sdk/evaluation'],
  ['openfeature', '@gradual/sdk/openfeature'],
  ['testing', '@gradual/sdk/testing'],
]);

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (/** @type {import('typedoc').Context} */ context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const name = IMPORT_PATHS.get(module.name);
      if (name === undefined) throw new Error(`typedoc-module-names: entry module "${module.name}" is not an export of @gradual/sdk`);
      module.name = name;
    }
  });
}
