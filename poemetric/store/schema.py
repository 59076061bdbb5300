"""SQLite schema of a run store, as an ordered list of migrations (the first, the tables of the
first release, is in `poemetric.store.schema_initial`).

`PRAGMA user_version` holds the number of migrations applied. Never edit a released migration:
append a new one.
"""

from __future__ import annotations

from poemetric.store.schema_initial import INITIAL_SCHEMA

MIGRATIONS: list[str] = [
    # 1: initial schema (poemetric.store.schema_initial)
    INITIAL_SCHEMA,
    # 2: human rating surveys (poemetric survey build / serve / sheets / import)
    """
    CREATE TABLE surveys (
        survey_id TEXT PRIMARY KEY,
        task TEXT NOT NULL,
        seed INTEGER,
        config TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE survey_raters (
        survey_id TEXT NOT NULL REFERENCES surveys(survey_id),
        rater_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (survey_id, rater_id)
    );
    CREATE TABLE survey_assignments (
        survey_id TEXT NOT NULL,
        rater_id TEXT NOT NULL,
        position INTEGER NOT NULL,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
        check_expected INTEGER,
        completed_at TEXT,
        PRIMARY KEY (survey_id, rater_id, position),
        UNIQUE (survey_id, rater_id, generation_id),
        FOREIGN KEY (survey_id, rater_id) REFERENCES survey_raters(survey_id, rater_id)
    );
    CREATE TABLE survey_answers (
        survey_id TEXT NOT NULL,
        rater_id TEXT NOT NULL,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
        question TEXT NOT NULL,
        score REAL,
        text TEXT,
        source TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (survey_id, rater_id, generation_id, question),
        FOREIGN KEY (survey_id, rater_id) REFERENCES survey_raters(survey_id, rater_id)
    );
    """,
    # 3: ghostwriting protocols (issue 13): style-matching answers of LLM judges, and line-level
    # fluency / coherence annotations imported from printable sheets
    """
    CREATE TABLE style_matches (
        match_id TEXT PRIMARY KEY,
        trial_id TEXT NOT NULL,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
        judge TEXT NOT NULL,
        trial_index INTEGER NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        target_poet TEXT NOT NULL,
        candidates TEXT NOT NULL,
        candidate_poets TEXT NOT NULL,
        correct_choice TEXT NOT NULL,
        choice TEXT,
        correct INTEGER,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        template_hash TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        reasoning TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (trial_id, judge, sample_index)
    );
    CREATE INDEX style_matches_judge ON style_matches(judge);
    CREATE TABLE line_annotations (
        sheet_id TEXT NOT NULL,
        annotator TEXT NOT NULL,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
        line_number INTEGER NOT NULL,
        fluency REAL,
        coherence REAL,
        source TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (sheet_id, annotator, generation_id, line_number)
    );
    """,
    # 4: judging, complete (issue 8). Judgments may be 'not_judged' (an empty answer or a refusal
    # is not sent to the judge) and record the parser's notes, refusals, re-asks and structured
    # output; `recognitions` holds the memorisation probe; `holders` and `leases` keep two
    # processes from buying the same answer.
    """
    CREATE TABLE judgments_v2 (
        judgment_id TEXT PRIMARY KEY,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
        judge TEXT NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error', 'not_judged')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        template_hash TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        reasoning TEXT,
        parsed TEXT,
        form INTEGER, theme INTEGER, vocabulary INTEGER, creativity INTEGER,
        idiosyncrasy INTEGER, emotional_resonance INTEGER, imagery INTEGER,
        literary_devices INTEGER, overall_quality INTEGER, human_authorship INTEGER,
        comment_literary_devices TEXT, comment_overall_quality TEXT, comment_human_authorship TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL,
        parse_notes TEXT,
        refusal INTEGER NOT NULL DEFAULT 0,
        reasks INTEGER NOT NULL DEFAULT 0,
        turns TEXT,
        structured TEXT,
        UNIQUE (generation_id, judge, sample_index)
    );
    INSERT INTO judgments_v2 (judgment_id, generation_id, judge, sample_index, status, provider,
        provider_model, settings, template_hash, cache_key, raw_response, response_text,
        reasoning, parsed, form, theme, vocabulary, creativity, idiosyncrasy,
        emotional_resonance, imagery, literary_devices, overall_quality, human_authorship,
        comment_literary_devices, comment_overall_quality, comment_human_authorship,
        input_tokens, output_tokens, reasoning_tokens, cost_usd, latency_s, request_id, error,
        attempts, batch_id, created_at)
    SELECT judgment_id, generation_id, judge, sample_index, status, provider, provider_model,
        settings, template_hash, cache_key, raw_response, response_text, reasoning, parsed, form,
        theme, vocabulary, creativity, idiosyncrasy, emotional_resonance, imagery,
        literary_devices, overall_quality, human_authorship, comment_literary_devices,
        comment_overall_quality, comment_human_authorship, input_tokens, output_tokens,
        reasoning_tokens, cost_usd, latency_s, request_id, error, attempts, batch_id, created_at
    FROM judgments;
    DROP TABLE judgments;
    ALTER TABLE judgments_v2 RENAME TO judgments;
    CREATE INDEX judgments_judge ON judgments(judge);
    CREATE TABLE recognitions (
        recognition_id TEXT PRIMARY KEY,
        poem_id TEXT NOT NULL REFERENCES poems(poem_id),
        judge TEXT NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        template_hash TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        reasoning TEXT,
        answered_title TEXT,
        answered_author TEXT,
        title_similarity REAL,
        author_similarity REAL,
        recognised INTEGER,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (poem_id, judge, sample_index)
    );
    CREATE TABLE holders (
        holder TEXT PRIMARY KEY,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        process_start TEXT,
        command TEXT,
        started_at TEXT NOT NULL,
        heartbeat_at TEXT NOT NULL
    );
    CREATE TABLE leases (
        stage TEXT NOT NULL,
        job_key TEXT NOT NULL,
        holder TEXT NOT NULL,
        acquired_at TEXT NOT NULL,
        PRIMARY KEY (stage, job_key)
    );
    CREATE INDEX leases_holder ON leases(holder);
    """,
    # 5: forced-choice answers of the minimal-pair probes (`probe run --scorer chat:MODEL`)
    """
    CREATE TABLE probe_choices (
        choice_id TEXT PRIMARY KEY,
        pair_id TEXT NOT NULL,
        scorer TEXT NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        task TEXT,
        poem_id TEXT,
        original_position INTEGER,
        choice INTEGER,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (pair_id, scorer, sample_index)
    );
    """,
    # 6: when each survey answer given on the web was last edited, by the rater's browser clock
    # (ms since 1970): a save older than the stored edit is not stored (poemetric.survey.edits)
    """
    CREATE TABLE survey_edits (
        survey_id TEXT NOT NULL,
        rater_id TEXT NOT NULL,
        generation_id TEXT NOT NULL,
        question TEXT NOT NULL,
        edited_at INTEGER NOT NULL,
        PRIMARY KEY (survey_id, rater_id, generation_id, question),
        FOREIGN KEY (survey_id, rater_id) REFERENCES survey_raters(survey_id, rater_id)
    );
    """,
    # 7: last lines an API model wrote for `probe build --tasks last_line` (one row per request:
    # `line_id` covers the generator, the prompt, its settings and seed, and the sample)
    """
    CREATE TABLE probe_lines (
        line_id TEXT PRIMARY KEY,
        poem_id TEXT NOT NULL,
        generator TEXT NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        seed INTEGER,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL
    );
    CREATE INDEX probe_lines_generator ON probe_lines(generator);
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)

#: Tables users may export, in pipeline order.
EXPORTABLE_TABLES = (
    "poems",
    "templates",
    "prompts",
    "generations",
    "form_checks",
    "judgments",
    "recognitions",
    "calls",
    "batches",
    "surveys",
    "survey_assignments",
    "survey_answers",
    "style_matches",
    "line_annotations",
    "probe_choices",
    "probe_lines",
)

#: The order `poemetric export` writes each table's rows in: its natural key (the key `merge`
#: matches rows by, or its primary key), unique in the table; poems in the dataset's order.
#: Rows were written in the order they were stored, which `merge` sets by the order of its
#: sources: a run merged `s0 s1` and `s1 s0` exported the same rows in another order. A key of a UNIQUE or PRIMARY KEY constraint
#: is read through its index, a piece at a time (no sort of the table). The call log has no key
#: (`merge` renumbers `call_id`): it is ordered by its values, `call_id` last, for rows alike.
EXPORT_ORDER: dict[str, tuple[str, ...]] = {
    "poems": ("position", "poem_id"),  # the dataset's order, as `analyze` reads them
    "templates": ("template_hash",),
    "prompts": ("prompt_id",),
    "generations": ("prompt_id", "author", "sample_index"),
    "form_checks": ("generation_id",),
    "judgments": ("generation_id", "judge", "sample_index"),
    "recognitions": ("poem_id", "judge", "sample_index"),
    "calls": (
        "created_at",
        "cache_key",
        "attempt",
        "provider",
        "model",
        "outcome",
        "http_status",
        "detail",
        "latency_s",
        "call_id",
    ),
    "batches": ("batch_id",),
    "surveys": ("survey_id",),
    "survey_assignments": ("survey_id", "rater_id", "position"),
    "survey_answers": ("survey_id", "rater_id", "generation_id", "question"),
    "style_matches": ("trial_id", "judge", "sample_index"),
    "line_annotations": ("sheet_id", "annotator", "generation_id", "line_number"),
    "probe_choices": ("pair_id", "scorer", "sample_index"),
    "probe_lines": ("line_id",),
}


def export_order(table: str) -> str:
    """The ORDER BY clause of `table`'s rows in an export (`EXPORT_ORDER`; the stored order,
    `rowid`, for a table outside it: `meta`, `response_cache`, `holders`, `leases`)."""
    return " ORDER BY " + ", ".join(EXPORT_ORDER.get(table, ("rowid",)))
