import { Type } from '@sinclair/typebox';
import { enumOf, recordOf } from '../../util/schema-builders.js';

/** Building blocks the configuration sections share. */

export const decision = enumOf(['allow', 'deny', 'ask']);

export const closed = { additionalProperties: false } as const;

export const stringMap = recordOf(Type.String());
