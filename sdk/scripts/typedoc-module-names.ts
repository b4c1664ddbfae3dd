/**
 * TypeDoc plugin for the SDK's API reference (sdk/typedoc.json, `npm run docs:sdk`): names each
 * entry module by the import path a user writes (`@gradual/sdk`, `@gradual/sdk/evaluation`…)
 * instead of the name TypeDoc derives from its file (`index`, `evaluation`…).
 */
import { Converter, ReflectionKind, type Application, type Context } from 'typedoc';

/** TypeDoc's name of each entry module (src/index.ts → `index`) → the import path. */
const IMPORT_PATHS = new Map([
  ['index', '@gradual/sdk'],
  ['evaluation', '@gradual/sdk/evaluation'],
  ['openfeature', '@gradual/sdk/openfeature'],
  ['testing', '@gradual/sdk/testing'],
]);

export function load(app: Application): void {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context: Context) => {
    for (const module of context.project.getChildrenByKind(ReflectionKind.Module)) {
      const name = IMPORT_PATHS.get(module.name);
      if (name === undefined) throw new Error(`typedoc-module-names: entry module "${module.name}" is not an export of @gradual/sdk`);
      module.name = name;
    }
  });
}
