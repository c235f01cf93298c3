// Run in the page by e2e/test_panels.py: for each panel and sample state, the fields it touches
// must be declared, and the DOM from the declared fields alone must equal the DOM from all.
async ({samples, extra, module, exportName}) => {
  const PANELS = (await import(module))[exportName];
  const {pick} = await import("/js/panels/kit.js");
  const {h} = await import("/js/dom.js");
  const {other} = await import("/js/state.js");
  const panels = [...PANELS];
  if (extra === "undeclared") {
    // A panel that shows the LP without declaring "lp": the check must catch it.
    panels.push({name: "bad", reads: ["seats"], render: ({s}) => h("p", {text: String(s.lp && s.lp.A)})});
  }
  const uiVariants = (entry) => [
    {},
    {concedeArmed: true, resultDisputeOpen: true, judgeOpen: true, rejecting: entry, correcting: entry, rollCount: 2},
  ];
  const makeUi = (over) => ({
    kp: {target: "opp", kind: "damage", amount: "300"}, rollCount: 1, concedeArmed: false, judgeOpen: false,
    resultDisputeOpen: false, rejecting: null, correcting: null, matchConfirmAfter: null, status: "open",
    queued: 0, forms: {}, listCheck: null, banlists: [], listChecks: 0, listTimer: null, listRefs: null, ...over,
  });
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
        const ctx = (s, ui) => ({s, view, ui, code: "K7QF2M", token: null, send: () => {}, leave: () => {}, redraw: () => {}, now: 0});
        // 1. what it touches
        const touched = new Set();
        const spy = new Proxy(state, {
          get(t, k) { if (typeof k === "string") touched.add(k); return t[k]; },
          has(t, k) { touched.add(String(k)); return k in t; },
          ownKeys(t) { touched.add("*"); return Reflect.ownKeys(t); },
        });
        const uiTouched = new Set();
        const ui = new Proxy(makeUi(over), {get(t, k) { if (typeof k === "string") uiTouched.add(k); return t[k]; }});
        let full;
        try {
          full = panel.render(ctx(spy, ui));
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
        // 2. the same DOM from the declared fields alone
        const fullHtml = full ? full.outerHTML : "";
        const picked = panel.render(ctx(pick(state, panel.reads), makeUi(over)));
        const pickedHtml = picked ? picked.outerHTML : "";
        if (pickedHtml !== fullHtml) problems.push(`${panel.name} ${sample.label}: differs with only its declared fields`);
      }
    }
  }
  return {problems: [...new Set(problems)], renders, panels: panels.map((p) => [p.name, p.reads])};
}
