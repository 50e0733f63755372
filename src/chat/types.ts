/** Types the chat plugin's files share; its own file so none of them imports chatPlugin.ts back. */

/** Which tool calls wait for the person's approval in the chat; see `ChatPluginOptions.approval`. */
export type ChatApproval = "writes" | "destructive" | "none";
