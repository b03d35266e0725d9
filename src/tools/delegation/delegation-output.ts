import { Type } from '../../util/type-builder.js';

/** call_with_args_file returns what its target returned, in the target's own shape. */
export const callWithArgsFileOutput = Type.Unknown({ description: "The target tool's result, in its own shape." });
