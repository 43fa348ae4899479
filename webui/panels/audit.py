"""The audit panel's view (declared in dpviz/tools/audit/): one-click examples above the inputs,
then the verdict as a sentence, a link that draws the audit's attack over the ε-DP promise on the
privacy-budget page, the numbers, the two output distributions with the event drawn,
downloads (the result as JSON, the chart's data and images) and the way to reproduce it."""

from __future__ import annotations

import html
import json
from typing import Any

import streamlit as st

from dpviz import tools
from dpviz.auditing import chart
from dpviz.auditing.examples import TITLES, claim_of
from dpviz.errors import InputError
from dpviz.tools.audit.budget_link import audit_budget_link
from webui.figure_card import download_row
from webui.plotly_element import chart_json, plotly_json_chart
from webui.url_state import canonical_query, share_link


def examples(panel) -> None:
    """One button per built-in example: it fills in the example's samples and claim."""
    st.markdown("**Built-in examples**, one click each (they fill in the samples and the claim):")
    cols = st.columns(len(TITLES))
    for col, (key, title) in zip(cols, TITLES.items()):
        if col.button(title, key=f"example-{key}", use_container_width=True):
            claimed, delta, distance = claim_of(key)
            st.session_state.update(example=key, claimed=claimed, delta=delta, distance=distance)
            st.rerun()
    current = st.session_state.get("example", "none")
    if current in TITLES:
        left, right = st.columns([4, 1])
        left.info(f"Samples: the example **{TITLES[current]}**. Your files below are used when no example is chosen.")
        if right.button("Audit my files instead", key="example-none", use_container_width=True):
            defaults = {p.name: p.default for p in panel.params}  # the example set the claim: back to the defaults
            st.session_state.update({k: defaults[k] for k in ("claimed", "delta", "distance")}, example="none")
            st.rerun()


def _cli(values: dict[str, Any]) -> str:
    opts = f"--claimed {values['claimed']:g}"
    for name, default in (("delta", 0.0), ("distance", 1.0), ("confidence", 0.95), ("seed", 0)):
        if values[name] != default:
            opts += f" --{name} {values[name]:g}"
    return f"python -m dpviz audit outputs_D.csv outputs_D_prime.csv {opts} --out result.json"


def budget_link_html(link) -> str:
    """The link to the privacy-budget page (a :class:`dpviz.tools.audit.budget_link.AuditBudgetLink`),
    or the sentence saying why there is none, as HTML."""
    what = f"TPR ≥ {link.tpr:.3g} at FPR ≤ {link.fpr:.3g}"
    if link.href is None:
        return (
            f"<p>This audit's attack ({html.escape(what)}) against the ε-DP promise: not drawn on the privacy-budget "
            f"page, as {html.escape(link.why_not)}.</p>"
        )
    return (
        f"<p><a href='{html.escape(link.href, quote=True)}' target='_self'>See this audit's attack "
        f"({html.escape(what)}) against the promise of ε = {link.epsilon:g}</a> on the privacy-budget page: the "
        "best any ε-DP mechanism can allow an attacker, with the attack the audit certified on top.</p>"
    )


def show(outcome, values: dict[str, Any]) -> None:
    """The audit's result (``None``: nothing to audit yet)."""
    if outcome is None:
        st.info(
            "Upload the outputs on D and on D′ (or click an example above) to run the audit.", icon=":material/upload:"
        )
        return
    r = outcome.result
    (st.error if r.violated else st.info)(r.verdict, icon=":material/gpp_bad:" if r.violated else ":material/search:")
    st.caption(f"Samples: {outcome.samples}.")
    st.html(budget_link_html(audit_budget_link(r)))
    cols = st.columns(4)
    cols[0].metric("Privacy loss proved (lower bound)", f"{r.epsilon_lower_bound:.3g}")
    cols[1].metric("Claimed loss ε·d", f"{r.claimed_loss:.3g}")
    cols[2].metric("Plug-in estimate on the event", "—" if r.epsilon_estimate is None else f"{r.epsilon_estimate:.3g}")
    if r.delta_lower_bound is not None:
        cols[3].metric(f"δ proved at ε = {r.claimed_loss:.3g}", f"{r.delta_lower_bound:.3g}")
    else:
        a, b = r.samples["a"], r.samples["b"]
        cols[3].metric("Samples a side", f"{a:,}" if a == b else f"{a:,} and {b:,}")
    try:
        df = chart.table(r)
    except InputError as err:
        st.error(f"The distributions cannot be drawn: {err}")
        return
    fig = chart.figure(df, r)
    chart_col, text_col = st.columns([4, 1.35], gap="medium")
    # dpviz's chart element, as every page's chart: the house style as drawn (not Streamlit's theme
    # over it), a name and a description for a screen reader
    plotly_json_chart(chart_col, chart_json(fig), key="audit-chart", config={"displaylogo": False})
    c = r.counts
    side = {"a": ("D", "D′"), "b": ("D′", "D")}[r.event_numerator]
    with text_col:
        st.markdown(
            f"**The event S**: {r.event}. Learned on the training half only; counted on the evaluation half: "
            f"{c['numerator']:,} of {c['numerator_of']:,} outputs on {side[0]} and {c['denominator']:,} of "
            f"{c['denominator_of']:,} on {side[1]}."
        )
        st.markdown(
            "Bars: each input's outputs on the evaluation half"
            + (
                ", as a density of the event's score (the outermost 0.1% in the end bins)"
                if r.kind == "numeric"
                else ""
            )
            + f". The shaded side is S. A lower bound only ever proves too little: "
            f"{'the claim is broken' if r.violated else 'no violation found is not a proof of privacy'}."
        )
        if r.kind == "categorical" and r.chart["distinct"] > len(r.chart["outputs"]):
            st.caption(
                f"The {len(r.chart['outputs'])} most frequent of {r.chart['distinct']:,} distinct outputs shown."
            )
    result_json = json.dumps(r.to_dict(), indent=2)
    download_row(
        chart_col,
        "audit",
        lambda: df.to_csv(index=False),
        lambda: fig,
        extra=(("⬇ result.json", result_json, "result.json", "application/json"),),
    )
    with chart_col.expander("Reproduce this audit"):
        st.markdown(
            "Link to this audit (the claim, the seed, the example or the uploaded files while this server keeps them):"
        )
        st.code(share_link(canonical_query(_page_params(), values)), language=None)
        st.markdown("The same audit from the command line, on your two files:")
        st.code(_cli(values), language="bash")
        st.markdown(
            "In a notebook: `r = dpviz.audit(outputs_D, outputs_D_prime, claimed=...)`; `r.verdict`, `r.to_dict()`."
        )


def _page_params():
    return tools.get("audit").params
