/**
 * The sign-in and consent forms accept posts from their own pages only: a same-origin `Origin`
 * header, or (where a browser sends no Origin) `Sec-Fetch-Site: same-origin`. A post carrying
 * neither is refused too, so nothing that strips the header (a plugin, an old client) gets by.
 */
import type { RequestHandler } from "express";
import { sendPage } from "./pageResponses.js";
import { problemPage } from "./pages.js";

export function sameOriginForms(issuer: string): RequestHandler {
  const origin = new URL(issuer).origin;
  return (req, res, next) => {
    const from = req.headers.origin;
    const site = req.headers["sec-fetch-site"];
    if (typeof from === "string" && from !== "null") {
      if (from === origin || from === `${req.protocol}://${req.get("host")}`) return next();
    } else if (site === "same-origin") {
      return next();
    }
    sendPage(res, 403, problemPage("Refused", "This form was not posted from this site."));
  };
}
