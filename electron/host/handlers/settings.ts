/**
 * `settings.*`: the limits agent programs run under, for the app's settings
 * screen. Saving writes settings.json through the Workbench's AgentLimitsSource
 * (the bounds were checked by the channel's schema) and tells every window.
 */
import type { HandlerContext, HandlerGroup } from "./context.ts";

export function settingsHandlers(ctx: HandlerContext): HandlerGroup<"settings.agentLimits" | "settings.saveAgentLimits"> {
  const { workbench } = ctx;
  return {
    "settings.agentLimits": async () => workbench.agentLimits.view(),
    "settings.saveAgentLimits": async ({ saved }) => {
      const view = workbench.agentLimits.save(saved);
      workbench.bus.publish({ type: "settings.changed" });
      return view;
    },
  };
}
