// Run in the page by e2e/test_panels.py: for each panel and sample state, the fields it touches
// must be declared, and the DOM from the declared fields alone must equal the DOM from all.
async ({samples, extra, module, exportName}) => {
  const PANELS = (await import(module))[exportName];
  const {pick} = await import("/js/panels/kit.js");
  const {h} = await import("/js/dom.js");
  const {other} = await import("/js/state.js");
  const {ScreenUi} = await import("/js/ui.js");
  const panels = [...PANELS];
  if (extra === "undeclared") {
    // A panel that shows the LP without declaring "lp": the check must catch it.
    panels.push({name: "bad", reads: ["seats"], render: ({s}) => h("p", {text: String(s.lp && s.lp.A)})});
  }
  const uiVariants = (entry) => [
    {},
    {concedeArmed: true, resultDisputeOpen: true, judgeOpen: true, rejecting: entry, correcting: entry, rollCount: 2},
  ];
  // The UI state as the screen's owner (web/js/ui.js) holds it, seen through the panel's handle.
  const makeUi = (over, owner) => {
    const screen = new ScreenUi();
    screen.write("screen", {kp: {target: "opp", kind: "damage", amount: "300"}, banlists: [], ...over}, false);
    return screen.handle(owner);
  };
  const LINK = {status: "open", queued: 0, unsent: []};
  const problems = [];
  let renders = 0;
  for (const sample of samples) {
    const seat = sample.seat;
    const isSeat = seat === "A" || seat === "B";
    const view = {role: isSeat ? "seat" : "spectator", seat, isSeat, me: isSeat ? seat : "A", opp: isSeat ? other(seat) : "B"};
    const state = sample.state;
    const pendingEntry = (state.pending || []).length ? state.pending[0].entry : null;
    const disputeEntry = (state.disputes || []).length ? state.disputes[0].entry : null;
    for (const over of uiVariants(pendingEntry ?? disputeEntry)) {
      for (const panel of panels) {
        const ctx = (s, ui, link) => ({s, view, ui, link, code: "K7QF2M", token: null, send: () => {}, leave: () => {}, redraw: () => {}, now: 0});
        // 1. what it touches
        const touched = new Set();
        const spy = new Proxy(state, {
          get(t, k) { if (typeof k === "string") touched.add(k); return t[k]; },
          has(t, k) { touched.add(String(k)); return k in t; },
          ownKeys(t) { touched.add("*"); return Reflect.ownKeys(t); },
        });
        const uiTouched = new Set();
        const ui = new Proxy(makeUi(over, panel.name), {get(t, k) { if (typeof k === "string" && k !== "set" && k !== "keep") uiTouched.add(k); return t[k]; }});
        const linkTouched = new Set();
        const link = new Proxy(LINK, {get(t, k) { if (typeof k === "string") linkTouched.add(k); return t[k]; }});
        let full;
        try {
          full = panel.render(ctx(spy, ui, link));
        } catch (err) {
          problems.push(`${panel.name} ${sample.label}: threw ${err}`);
          continue;
        }
        renders++;
        const undeclared = [...touched].filter((k) => !panel.reads.includes(k));
        if (undeclared.length) problems.push(`${panel.name} ${sample.label}: reads undeclared ${undeclared.join(",")}`);
        const allowed = new Set([...(panel.local || []), ...(panel.own || []), "forms"]);
        const uiUndeclared = [...uiTouched].filter((k) => !allowed.has(k));
        if (uiUndeclared.length) problems.push(`${panel.name} ${sample.label}: UI state undeclared ${uiUndeclared.join(",")}`);
        const linkUndeclared = [...linkTouched].filter((k) => !(panel.link || []).includes(k));
        if (linkUndeclared.length) problems.push(`${panel.name} ${sample.label}: link undeclared ${linkUndeclared.join(",")}`);
        // 2. the same DOM from the declared fields alone
        const fullHtml = full ? full.outerHTML : "";
        const picked = panel.render(ctx(pick(state, panel.reads), makeUi(over, panel.name), LINK));
        const pickedHtml = picked ? picked.outerHTML : "";
        if (pickedHtml !== fullHtml) problems.push(`${panel.name} ${sample.label}: differs with only its declared fields`);
      }
    }
  }
  return {problems: [...new Set(problems)], renders, panels: panels.map((p) => [p.name, p.reads])};
}
