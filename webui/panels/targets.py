"""The "Choose from a target" panel (declared by :func:`dpviz.frontier.target_panel`): the setting
that reaches the sidebar's target for every mechanism, what the other measures cost there, and a
button per mechanism that moves the page's slider there (the link follows, so it shares it)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dpviz.targets import PAGES


def _move(moves: dict) -> None:
    for slider, value in moves.items():
        st.session_state[slider] = value


def slider_value(x: float, side: str, digits: int = 4) -> float:
    """The solved setting as the slider takes it: ``digits`` significant digits, rounded towards
    the side that meets the target (``epsilon ≤ …``: down; ``≥``: up), after the solver's last-bit
    noise is rounded away (to 9 digits: 0.4999999999999999 is 0.5)."""
    if not math.isfinite(x) or x <= 0:
        return x
    clean = float(f"{x:.9g}")
    scale = 10 ** (math.floor(math.log10(clean)) - digits + 1)
    steps = clean / scale
    steps = math.floor(steps + 1e-9) if "≤" in side else math.ceil(steps - 1e-9)
    return float(f"{steps * scale:.{digits}g}")


def _table(answer: pd.DataFrame, slider: str) -> pd.DataFrame:
    page = PAGES[answer.attrs["page"]]
    measures = [m.column for m in page.measures if m.column in answer.columns and m.column != slider]
    extra = [c for c in ("dp_epsilon",) if c in answer.columns]
    keep = ["mechanism", "lambda_", slider, "side", "low", "high", *measures, *extra, "reachable", "note"]
    return answer[[c for c in keep if c in answer.columns]]


def show(answer: pd.DataFrame | None, values) -> None:
    """The answer as a table and one button per reachable mechanism; None: nothing chosen yet."""
    if answer is None:
        st.caption("No target chosen: pick a target measure in the sidebar.")
        st.divider()
        return
    page = PAGES[answer.attrs["page"]]
    slider = answer.attrs.get("solved", page.slider)  # the page's slider, or the setting the panel chose
    target, value = values["target_measure"], values["target_value"]
    measure = page.measure(target)
    sense = measure.sense
    held = f", the other settings held (k = {values[page.slider]:g})" if slider != page.slider else ""
    st.markdown(
        f"**Target:** {target} {sense} {value:g} ({measure.label}), solved over {slider} for every curve{held}."
    )
    for note in answer.attrs.get("contradictions", []):
        st.warning(f"These targets contradict each other: {note}.")
    st.dataframe(_table(answer, slider), hide_index=True, width="stretch")
    if not measure.exact:
        st.caption(
            "Simulated measure: low and high bracket the setting with a 95% interval from the page's own draws "
            "(the mean ± 1.96 standard errors, each made monotone along the slider)."
        )
    reachable = answer[answer.reachable]
    if reachable.empty:
        st.info(f"No mechanism reaches {target} {sense} {value:g} within the range of {slider} (see each note).")
    declared = {q.name: q for q in page.params()}  # which moved settings are live sliders
    cols = st.columns(min(max(len(reachable), 1), 4))
    for k, row in enumerate(reachable.itertuples()):
        col = cols[k % len(cols)]
        x = slider_value(float(getattr(row, slider)), row.side)
        if not math.isfinite(x):
            continue
        moves = {slider: x}
        lam = getattr(row, "lambda_", float("nan"))
        if isinstance(lam, float) and math.isfinite(lam) and lam != values.get("lambda_"):
            moves["lambda_"] = lam  # a point of OME's (ε, λ) curve: both sliders
        said = ", ".join(f"{k.rstrip('_').replace('lambda', 'λ')} to {v:g}" for k, v in moves.items())
        clicked = col.button(
            f"Move {said} ({row.mechanism})",
            key="target-move-" + "-".join(f"{k}{v:g}" for k, v in moves.items()) + f"-{row.mechanism}",
            on_click=_move,
            args=(moves,),
            help=f"Sets {slider} to {x:g}, where {row.mechanism} meets the target ({row.side}; rounded to 4 "
            "significant digits on that side).",
        )
        if clicked and not all(getattr(declared.get(k), "slider", False) for k in moves):
            # a setting in the sidebar, outside the live section this panel is drawn in (a run of
            # the section alone would leave its box and the link at the old value): the whole page
            st.rerun()
    st.download_button(
        "Download the answer (CSV)",
        answer.to_csv(index=False).encode(),
        file_name=f"{answer.attrs['page']}-target-{target}.csv",
        mime="text/csv",
        key="target-csv",
    )
    st.divider()
