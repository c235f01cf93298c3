// Run in the page by e2e/test_panels.py: the host redraws a panel only when its inputs change.
async () => {
  const {PanelHost} = await import("/js/panels/kit.js");
  const {h} = await import("/js/dom.js");
  const drawn = [];
  const panel = {name: "p", reads: ["lp"], local: ["open"], render: ({s, ui}) => { drawn.push(s.lp.A); return h("b", {text: `${s.lp.A} ${ui.open}`}); }};
  const slot = document.createElement("div");
  const ui = {open: false};
  const host = new PanelHost([panel], {p: slot}, (p, s) => ({s, ui}));
  const view = {role: "seat", seat: "A"};
  const steps = [];
  host.update({lp: {A: 8000, B: 8000}, turn: {no: 1}}, view, ui); steps.push(slot.textContent);
  host.update({lp: {A: 8000, B: 8000}, turn: {no: 2}}, view, ui); steps.push(slot.textContent);
  host.update({lp: {A: 7000, B: 8000}, turn: {no: 2}}, view, ui); steps.push(slot.textContent);
  ui.open = true;
  host.update({lp: {A: 7000, B: 8000}, turn: {no: 2}}, view, ui); steps.push(slot.textContent);
  host.update({lp: {A: 7000, B: 8000}, turn: {no: 2}}, {role: "seat", seat: "B"}, ui); steps.push(slot.textContent);
  return {drawn, steps};
}
