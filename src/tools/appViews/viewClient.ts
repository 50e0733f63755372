/**
 * The script of every generated view, run inside the host's sandboxed frame after the ext-apps
 * `App` bridge (bound to `McpApp` by viewScript.ts). It reads the view's config (schema only),
 * draws the tool result the host hands it, and pages, sorts and toggles through the host's
 * tool calls (`app.callServerTool`), so every call meets the host's approval and the server's
 * permissions. Records are drawn with textContent only: their text is never parsed as HTML.
 */
export const VIEW_CLIENT_JS = String.raw`
const config = JSON.parse(document.getElementById("terreno-view-config").textContent);
const root = document.getElementById("root");
const app = new McpApp({ name: "terreno-view", version: "1.0.0" }, {}, { autoResize: true });
let args = {};
let current;

function el(tag, attrs, children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children || []) if (child) node.append(child);
  return node;
}

function textOf(result) {
  const part = (result.content || []).find((item) => item.type === "text");
  return part ? part.text : "The call failed.";
}

function display(field, value) {
  if (value === null || value === undefined || value === "") return "—";
  if (field.kind === "date") {
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) return String(value);
    return /T00:00:00(\.0+)?Z$/.test(value) ? value.slice(0, 10) : date.toLocaleString();
  }
  if (Array.isArray(value)) {
    if (value.every((item) => typeof item !== "object" || item === null)) return value.join(", ");
    return value.length + (value.length === 1 ? " item" : " items");
  }
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function labelOf(record) {
  const value = config.labelField ? record[config.labelField] : undefined;
  return typeof value === "string" && value ? value : record.id;
}

function status(text, tone) {
  const line = root.querySelector(".status");
  if (line) {
    line.textContent = text || "";
    line.className = "status" + (tone ? " " + tone : "");
  }
}

async function call(name, input) {
  try {
    return await app.callServerTool({ name, arguments: input });
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: String((error && error.message) || error) }] };
  }
}

function toggle(field, record) {
  const box = el("input", {
    type: "checkbox",
    "aria-label": field.label + ": " + labelOf(record),
    onchange: async () => {
      const wanted = box.checked;
      box.disabled = true;
      status("Asking to set " + field.label.toLowerCase() + " of “" + labelOf(record) + "”…");
      const result = await call(config.updateTool, { id: record.id, [field.name]: wanted });
      box.disabled = false;
      if (result.isError || !result.structuredContent) {
        box.checked = !wanted;
        status(textOf(result), "error");
        return;
      }
      Object.assign(record, result.structuredContent.data || {});
      box.checked = Boolean(record[field.name]);
      status("Saved “" + labelOf(record) + "”.", "done");
    },
  });
  box.checked = Boolean(record[field.name]);
  return box;
}

function cell(field, record) {
  if (field.toggle) return toggle(field, record);
  return document.createTextNode(display(field, record[field.name]));
}

const byName = new Map(config.fields.map((field) => [field.name, field]));

function sortOf() {
  const sort = typeof args.sort === "string" ? args.sort.split(",")[0] : "";
  return sort.startsWith("-") ? { name: sort.slice(1), dir: "descending" } : { name: sort, dir: "ascending" };
}

async function reload(patch) {
  if (!config.listTool) return;
  const next = Object.assign({}, args, patch);
  status("Loading…");
  const result = await call(config.listTool, next);
  if (!result.isError) args = next;
  show(result);
}

function table(body) {
  const sort = sortOf();
  const columns = config.columns.map((name) => byName.get(name)).filter(Boolean);
  const head = el("tr", {}, columns.map((field) => {
    const active = sort.name === field.name;
    const label = field.sortable && config.listTool
      ? el("button", {
          type: "button",
          text: field.label + (active ? (sort.dir === "ascending" ? " ▲" : " ▼") : ""),
          onclick: () => reload({ sort: (active && sort.dir === "ascending" ? "-" : "") + field.name, page: 1 }),
        })
      : field.label;
    return el("th", { scope: "col", "aria-sort": active ? sort.dir : undefined }, [label]);
  }));
  const rows = (body.data || []).map((record) =>
    el("tr", { "data-id": record.id }, columns.map((field) => el("td", {}, [cell(field, record)]))),
  );
  const page = body.page || 1;
  const pages = Math.max(1, Math.ceil((body.total || 0) / (body.limit || 1)));
  const pager = el("nav", { "aria-label": "Pages" }, [
    el("button", { type: "button", text: "Previous", disabled: page <= 1 || !config.listTool, onclick: () => reload({ page: page - 1 }) }),
    el("span", { text: "Page " + page + " of " + pages + " · " + (body.total || 0) + " in all" }),
    el("button", { type: "button", text: "Next", disabled: !body.more || !config.listTool, onclick: () => reload({ page: page + 1 }) }),
  ]);
  const empty = rows.length === 0 ? el("p", { class: "empty", text: "Nothing here." }) : undefined;
  return [
    // Wider than its frame (a phone), the table scrolls sideways in its own box, not off the edge.
    el("div", { class: "table-scroll" }, [
      el("table", {}, [el("thead", {}, [head]), el("tbody", {}, rows)]),
    ]),
    empty,
    pager,
  ];
}

function card(record) {
  const items = [];
  for (const field of config.fields) {
    items.push(el("dt", { text: field.label }));
    items.push(el("dd", {}, [cell(field, record)]));
  }
  return [el("h2", { text: labelOf(record) }), el("dl", {}, items)];
}

function show(result) {
  const parts = [el("h1", { text: config.title })];
  if (result.isError || !result.structuredContent) {
    parts.push(el("p", { class: "status error", role: "status", text: textOf(result) }));
    root.replaceChildren(...parts);
    return;
  }
  current = result.structuredContent;
  if (config.kind === "list") parts.push(...table(current));
  else parts.push(...card(current.data || {}));
  parts.push(el("p", { class: "status", role: "status" }));
  root.replaceChildren(...parts.filter(Boolean));
}

app.ontoolinput = (params) => {
  args = Object.assign({}, params.arguments || {});
};
app.ontoolresult = (result) => show(result);
app.connect().catch((error) => {
  root.replaceChildren(el("p", { class: "status error", text: "Could not reach the host: " + error }));
});
`;
