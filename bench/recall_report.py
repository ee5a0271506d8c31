"""The recall bench's report: the table it prints and its verdicts against the
issue's targets (bench/recall.py builds the report)."""

from __future__ import annotations

import statistics

TARGETS = {100_000: 15.0, 1_000_000: 15.0}     # HTTP p95 ms, query embedding included (issue 25)
BROAD_TARGET_MS = 60.0                          # the broad read's p95, auto route, query embedding included
RECALL_TARGET = 0.95


def stats(values: list[float]) -> dict:
    from http_load import percentile
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": round(percentile(values, 50), 2), "p95": round(percentile(values, 95), 2),
            "p99": round(percentile(values, 99), 2), "max": round(max(values), 2),
            "mean": round(statistics.fmean(values), 2)}


def table(report: dict) -> str:
    lines = [f"recall bench  {report['started_at']}  {report.get('target', 'single server')}, "
             f"PostgreSQL {report.get('postgres', '?')}, "
             f"{report['cpus']} CPUs, Python {report['python']}", f"command: {report['command']}"]
    e = report.get("embedding")
    if e:
        s, qe = e["single_query_ms"], e["query_embedder_ms"]
        lines.append(f"embedding ({e.get('space', 'minilm-l6-v2')}, torch threads {e['torch_threads']}): "
                     f"{e['texts_per_s']} texts/s "
                     f"batched "
                     f"at 64 ({e['texts']} texts in {e['batch_seconds']} s); one query p50 {s['p50']} / p95 {s['p95']} "
                     f"ms (torch), {qe['p50']} / {qe['p95']} ms (recall's query embedder); "
                     f"load {e['load_average_before'][0]} → {e['load_average_after'][0]}")
    w = report.get("world")
    if w:
        lines.append(f"world: {w['scopes']} scopes, {w['owners']} owners; caller sees {w['caller_scopes']} scopes "
                     f"(made in {w['seconds']} s)")
    for size in report.get("sizes", []):
        s = size.get("seed", {})
        lines += ["", f"== {size['cards']:,} cards =="]
        if s:
            lines.append(f"seed: {s['rows']:,} rows ({s['current_rows']:,} current, {s['events']:,} events); caller's "
                         f"candidates {s['caller_candidates']:,}; COPY {s['copy_s']} s ({s['copy_rows_per_s']:,}/s), "
                         f"HNSW build {s['hnsw_build_s']} s ({s['hnsw_size']}), VACUUM ANALYZE "
                         f"{s['vacuum_analyze_s']} s; table {s['table_size']}")
        sv = size.get("service")
        if sv:
            lines.append(f"service, {sv['queries']} queries/route, load {sv['load_average_before'][0]} → "
                         f"{sv['load_average_after'][0]}; auto chose {sv['auto_chose']}")
            lines.append(f"  {'route':<8}{'p50':>8}{'p95':>8}{'p99':>8}{'max':>8}   {'embed p50/p95':>14}   "
                         f"SQL mean ms by statement")
            for name, r in sv["routes"].items():
                t, em = r["total_ms"], r["embed_ms"]
                parts = ", ".join(f"{k} {v}" for k, v in r["sql_ms_mean"].items())
                lines.append(f"  {name:<8}{t['p50']:>8}{t['p95']:>8}{t['p99']:>8}{t['max']:>8}   "
                             f"{em['p50']:>6}/{em['p95']:<7}   {parts}")
            rc = sv["recall_at_k"]
            lines.append(f"  recall@{rc['k']} index vs exact ({rc['ordering']}): mean {rc['mean']}, min {rc['min']}, "
                         f"perfect {rc['perfect_share']:.0%}; index returned fewer: {rc['index_returned_fewer']}; "
                         f"auto vs exact: mean {rc.get('auto_mean')}")
        qd = size.get("quality")
        if qd:
            lines.append(f"  HNSW fetch of {qd['fetch']} vs exact top {qd['fetch']} by similarity: "
                         f"{qd['hnsw_fetch_recall_vs_exact_similarity']}; exact top {report['config']['k']} by score inside the exact "
                         f"top {qd['fetch']} by similarity: {qd['exact_score_topk_inside_exact_similarity_fetch']}"
                         f"; index route recall@{report['config']['k']} on these queries {qd['index_route_recall_same_queries']}"
                         f" ({qd['queries']} queries)")
        if qd:
            lines.append(f"  the similarity fetch's plan for this caller: {qd['similarity_fetch_plan']}")
        br = size.get("broad")
        if br:
            ms = br["ms_without_embedding"]
            lines.append(f"broad read: {br['scopes']} scopes, {br['candidates']:,} candidates, plan "
                         f"{br['similarity_fetch_plan']}; auto chose {br['auto_chose']}; p50/p95 ms without the "
                         f"embedding: exact {ms['exact']['p50']}/{ms['exact']['p95']}, index "
                         f"{ms['index']['p50']}/{ms['index']['p95']}, auto {ms['auto']['p50']}/{ms['auto']['p95']};"
                         f" recall@{report['config']['k']} index vs exact {br['recall_at_k']} (perfect {br['perfect_share']:.0%})"
                         f"; auto vs exact {br.get('auto_recall_at_k')}; auto with the embedding p50/p95 "
                         f"{_with_embedding(br, 'p50')}/{_with_embedding(br, 'p95')}")
        ip = size.get("in_process_request")
        if ip:
            lines.append(f"in-process request (test client, no socket): p50 {ip['request_ms']['p50']} / p95 "
                         f"{ip['request_ms']['p95']} ms, of which recall() p50 {ip['recall_inside_ms']['p50']}, "
                         f"the rest (auth, scope ids, cards, DRF, JSON) p50 {ip['rest_ms']['p50']} / p95 "
                         f"{ip['rest_ms']['p95']} ms; that rest runs {ip['rest_statements_per_request']} SQL "
                         f"statements "
                         f"taking {ip['rest_sql_ms_mean']} ms: {ip['rest_sql_ms_mean_by_kind']}")
        h = size.get("http")
        if h:
            hz = h["healthz"]["latency_ms"]
            env = "".join(f", {item}" for item in h.get("server_env") or [])
            lines.append(f"HTTP ({h['server']}{env}), load {h['load_average_before'][0]} → "
                         f"{h['load_average_after'][0]}; "
                         f"healthz p50 {hz['p50']} ms; routes {h.get('routes_seen')}; HTTP = service: "
                         f"{h.get('http_equals_service')}")
            for r in h["recall"]:
                m = r["latency_ms"]
                lines.append(f"  {r['clients']} client(s): {r['requests']} req, {r['requests_per_second']}/s, "
                             f"p50 {m['p50']}, p95 {m['p95']}, p99 {m['p99']}, max {m['max']} ms, errors {r['errors']}"
                             f"; load {r['load_average_before'][0]} → {r['load_average_after'][0]}")
            rr = h.get("recall_repeated")
            if rr:
                m = rr["latency_ms"]
                lines.append(f"  1 client, {rr['pool']} queries asked again (query vector cached): {rr['requests']} "
                             f"req, p50 {m['p50']}, p95 {m['p95']}, p99 {m['p99']}, max {m['max']} ms, errors "
                             f"{rr['errors']}; load {rr['load_average_before'][0]} → {rr['load_average_after'][0]}")
        lines += _cost_lines(size)
    if report.get("verdicts"):
        lines += ["", "targets: " + "; ".join(f"{k}: {'met' if v else 'MISSED'}"
                                              for k, v in report["verdicts"].items())]
    if report.get("error"):
        lines += ["", f"ERROR: {report['error']}"]
    if report.get("spaces"):
        lines.append(f"cards by embedding space: {report['spaces']}")
    lines.append(f"database: {report.get('database_fate')}")
    return "\n".join(lines)


def cost_line(read: str, c: dict) -> str:
    """What one read cost, by process (recall_cost.cost_phase)."""
    cpu = ", ".join(f"{k} {v}" for k, v in c["cpu_ms_per_read"].items() if v is not None)
    return (f"CPU ms per {read} read (auto route, {c['reads']} reads): {cpu}; embedding "
            f"{c['embedding_cpu_ms_per_read']}; wall {c['wall_ms_per_read']} ms")


def _cost_lines(size: dict) -> list[str]:
    lines = [cost_line(read, size["cost"][read]) for read in ("household", "broad")
             if size.get("cost", {}).get(read)]
    w = size.get("writes")
    if w:
        for name in ("single", "batch"):
            r = w[name]
            lines.append(f"writes, {name} ({r['calls']} calls): {r['cards_per_s']} cards/s, call p50 "
                         f"{r['call_ms_p50']} / p95 {r['call_ms_p95']} ms, SQL {r['sql_ms_per_card']} ms per card; "
                         f"{r['outcomes']}")
    return lines


def _with_embedding(broad: dict, key: str) -> float | None:
    timed = broad.get("ms_without_embedding", {}).get("auto, embedding included")
    return timed[key] if timed else None


def verdicts(report: dict) -> dict:
    out = {}
    for size in report.get("sizes", []):
        # The size asked for: a kept database grows by the cards its write phase adds.
        limit = next((ms for cards, ms in TARGETS.items() if cards <= size["cards"] < cards * 1.01), None)
        h = size.get("http", {}).get("recall", [])
        one = next((r for r in h if r["clients"] == 1), None)
        if limit and one:
            out[f"HTTP p95 < {limit:g} ms at {size['cards']:,} (1 client: {one['latency_ms']['p95']})"] = \
                one["latency_ms"]["p95"] < limit
        # What the service answers by default (auto) against the exact route.
        rc = size.get("service", {}).get("recall_at_k", {}).get("auto_mean")
        if rc is not None:
            out[f"recall@{report['config']['k']} ≥ {RECALL_TARGET} at {size['cards']:,} ({rc})"] = rc >= RECALL_TARGET
        br = size.get("broad", {}).get("auto_recall_at_k")
        if br is not None:
            out[f"recall@{report['config']['k']} ≥ {RECALL_TARGET} at {size['cards']:,}, broad read ({br})"] = br >= RECALL_TARGET
        p95 = _with_embedding(size.get("broad", {}), "p95")
        if p95 is not None:
            out[f"broad read p95 ≤ {BROAD_TARGET_MS:g} ms at {size['cards']:,}, embedding included ({p95})"] = \
                p95 <= BROAD_TARGET_MS
    return out


# --- main ------------------------------------------------------------------------------------
