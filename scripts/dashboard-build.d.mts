/** Types of scripts/dashboard-build.mjs (a plain script, run by Node before anything is compiled). */

/** dashboard/dist. */
export declare const dashboardDist: string;

/** Whether dashboard/dist was built from the dashboard's current sources and settings. */
export declare function dashboardIsFresh(): boolean;

/** Runs `vite build` for the dashboard; false, with a warning, when Vite is missing or the build fails. */
export declare function buildDashboard(options?: { quiet?: boolean }): Promise<boolean>;
