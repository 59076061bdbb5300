"""Migration 1 of the run store's schema, the first entry of `poemetric.store.schema.MIGRATIONS`:
the tables of the first release (meta, poems, templates, prompts, generations, form_checks,
judgments, response_cache, calls, batches). Released: never edit it; append a new migration.
"""

from __future__ import annotations

INITIAL_SCHEMA = """
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE poems (
        poem_id TEXT PRIMARY KEY,
        dataset TEXT NOT NULL,
        position INTEGER NOT NULL,
        form TEXT NOT NULL,
        title TEXT,
        author TEXT,
        content TEXT NOT NULL,
        meter TEXT,
        rhyme TEXT,
        theme TEXT,
        imagery TEXT,
        record TEXT NOT NULL
    );
    CREATE TABLE templates (
        template_hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE TABLE prompts (
        prompt_id TEXT PRIMARY KEY,
        poem_id TEXT NOT NULL REFERENCES poems(poem_id),
        template_hash TEXT NOT NULL REFERENCES templates(template_hash),
        text TEXT NOT NULL
    );
    CREATE TABLE generations (
        generation_id TEXT PRIMARY KEY,
        prompt_id TEXT NOT NULL REFERENCES prompts(prompt_id),
        poem_id TEXT NOT NULL REFERENCES poems(poem_id),
        author TEXT NOT NULL,
        sample_index INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL CHECK (status IN ('ok', 'error')),
        provider TEXT,
        provider_model TEXT,
        settings TEXT,
        template_hash TEXT,
        cache_key TEXT,
        raw_response TEXT,
        response_text TEXT,
        poem TEXT,
        reasoning TEXT,
        extraction_notes TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        reasoning_tokens INTEGER,
        cost_usd REAL,
        latency_s REAL,
        request_id TEXT,
        finish_reason TEXT,
        error TEXT,
        attempts INTEGER NOT NULL DEFAULT 1,
        batch_id TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (prompt_id, author, sample_index)
    );
    CREATE INDEX generations_author ON generations(author);
    CREATE TABLE form_checks (
        generation_id TEXT PRIMARY KEY REFERENCES generations(generation_id),
        checker_version TEXT NOT NULL,
        passed INTEGER,
        meter_score REAL,
        rhyme_score REAL,
        form_score REAL,
        explanation TEXT,
        error TEXT,
        created_at TEXT NOT NULL
    );
    CREATE TABLE judgments (
        judgment_id TEXT PRIMARY KEY,
        generation_id TEXT NOT NULL REFERENCES generations(generation_id),
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
        UNIQUE (generation_id, judge, sample_index)
    );
    CREATE TABLE response_cache (
        cache_key TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        completion TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE calls (
        call_id INTEGER PRIMARY KEY AUTOINCREMENT,
        cache_key TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        http_status INTEGER,
        detail TEXT,
        latency_s REAL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE batches (
        batch_id TEXT PRIMARY KEY,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        stage TEXT NOT NULL,
        status TEXT NOT NULL,
        request_keys TEXT NOT NULL,
        detail TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    """
