/**
 * vitest's own order (failed first, then longest first by the cache, or largest first without
 * one), with the files of one environment together: the node files first, then the others
 * (the dashboard's jsdom component tests). With `isolate: false` a worker runs file after file
 * only while their environments match; at each change it is stopped and a new one started,
 * which loads the server's module graph again. Scattered among the node files, the jsdom files
 * cost a new worker at every switch; grouped, one per worker.
 */
import { readFile } from 'node:fs/promises';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The docblock vitest reads a file's environment from (getSpecificationsOptions). */
const ENVIRONMENT_DOCBLOCK = /@(?:vitest|jest)-environment\s+([\w-]+)\b/;

export default class EnvironmentGroupingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const environments = await Promise.all(
      sorted.map(async (spec) => {
        const code = await readFile(spec.moduleId, 'utf8').catch(() => '');
        return ENVIRONMENT_DOCBLOCK.exec(code)?.[1] ?? spec.project.config.environment;
      }),
    );
    const isNode = (i: number) => environments[i] === 'node';
    return [...sorted.filter((_, i) => isNode(i)), ...sorted.filter((_, i) => !isNode(i))];
  }
}
