/** This SDK as it names itself to the server (ruleset acknowledgements); kept equal to package.json by version.test.ts. */
export const SDK_NAME = '@gradual/sdk';
export const SDK_VERSION = '0.1.0';
