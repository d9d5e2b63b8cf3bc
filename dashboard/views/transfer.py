"""Transfer: stored fine-tuning verdicts (Def. 35) and transfer matrices (Def. 37) with
their intervals over runs and maps, one fine-tuning setting at a time (`arena transfer` writes
them).
Read uncached: these small tables change without a new match, which the cache keys on."""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from arena.dashboard import charts, tables
from arena.dashboard.cache import fresh
from arena.storage.read_model import ReadModel

st.title("Transfer")
settings = fresh(ReadModel.transfer_setting_table)
if not len(settings):
    st.info("No transfer values stored yet. Measure some with arena transfer G1 G2 "
            "\\-\\-player hf:PATH \\-\\-db URL, then reload.")
    st.stop()
index = st.selectbox(
    "Fine-tuning setting", list(range(len(settings))), key="t_setting",
    format_func=lambda i: (f"{settings.iloc[i]['setting']}: {settings.iloc[i]['player']}, "
                           f"{settings.iloc[i]['finetuner']}, T={settings.iloc[i]['budget_tokens']}"
                           f", K={settings.iloc[i]['maps']}, {settings.iloc[i]['games']} games"),
)
chosen = settings.iloc[index]
with st.expander("Setting"):
    st.json(json.loads(str(chosen["setting_json"])))
sha = str(chosen["setting_sha256"])
verdicts = fresh(ReadModel.transfer_verdicts, sha)
st.subheader("Fine-tuning playability (Def. 35)")
tables.show(verdicts)
st.caption("before: S_G(M); after: S_G(F_G[M]) (means over the same evaluation maps). "
           "Playable in fine-tuning mode when the gain's interval (over runs and maps) "
           "lies above 0.")
values = fresh(ReadModel.transfer_values, sha)
if len(values):
    games = list(dict.fromkeys([*verdicts["game"], *values["source"], *values["target"]]))

    def cell(row: pd.Series) -> str:
        if pd.isna(row["value"]):
            return "undefined"
        return f"{row['value']:.3g} [{row['low']:.3g}, {row['high']:.3g}]"

    cells = values.assign(cell=values.apply(cell, axis=1))
    table = cells.pivot(index="source", columns="target", values="cell")
    table = table.reindex(index=[g for g in games if g in table.index],
                          columns=[g for g in games if g in table.columns])
    st.subheader("Transfer value V_row(column) (Def. 37)")
    st.dataframe(table.rename_axis(index="fine-tuned on", columns="evaluated at"),
                 width="stretch", placeholder="")
    st.caption("value [Fieller interval over runs and maps]. Undefined: the row's or the "
               "column's game is not playable, or the row's gain is too uncertain to divide "
               "by (Def. 37 needs two playable games).")
    st.altair_chart(charts.transfer_heatmap(values, games), width="stretch")
    tables.show(values)
else:
    st.info("No transfer value stored for this setting yet.")
