/** The contract table: every case runs on every surface (see ../contract.test.ts). */
import { actionResultCases } from "./actionResults.js";
import { combinatorCases } from "./combinators.js";
import { conflictCases } from "./conflicts.js";
import { documentShapeCases } from "./documentShape.js";
import { fieldRuleCases } from "./fieldRules.js";
import { filterCases } from "./filters.js";
import { foreignDocumentCases } from "./foreignDocuments.js";
import { hiddenFieldCases } from "./hiddenFields.js";
import { internalErrorCases } from "./internalErrors.js";
import { mergePatchCases } from "./mergePatch.js";
import { nullDefaultCases } from "./nullDefaults.js";
import { oneAnswerCases } from "./oneAnswer.js";
import { pagingCases } from "./paging.js";
import { permissionCases } from "./permissions.js";
import { populatedRefCases } from "./populatedRefs.js";
import { textAndTimeCases } from "./textAndTime.js";
import type { ContractCase } from "./types.js";
import { unknownKeyCases } from "./unknownKeys.js";
import { validationCases } from "./validation.js";
import { versionCases } from "./versions.js";
import { workspaceCases } from "./workspaces.js";
import { writeCases } from "./writes.js";

export const CONTRACT_CASES: readonly ContractCase[] = [
  ...permissionCases,
  ...hiddenFieldCases,
  ...filterCases,
  ...combinatorCases,
  ...pagingCases,
  ...validationCases,
  ...conflictCases,
  ...writeCases,
  ...mergePatchCases,
  ...internalErrorCases,
  ...documentShapeCases,
  ...populatedRefCases,
  ...oneAnswerCases,
  ...nullDefaultCases,
  ...actionResultCases,
  ...unknownKeyCases,
  ...foreignDocumentCases,
  ...textAndTimeCases,
  ...fieldRuleCases,
  ...versionCases,
  ...workspaceCases,
];

export type { ContractCase } from "./types.js";
