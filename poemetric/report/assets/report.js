/* POEMetric report: the poem browser. Reads the run's JSON once; each prompt's poems are one
   part of the browser section (POEMETRIC.part, below), read the first time the prompt is shown,
   and only the chosen prompt's poems are drawn. Every value from the run goes into the page
   through textContent, never as HTML, so a poem or a comment cannot inject markup or script. */
(function () {
  "use strict";
  var POEMETRIC = JSON.parse(document.getElementById("report-data").textContent);
  window.POEMETRIC = POEMETRIC;

  /* A section's parts (poemetric/report/parts.py), read when first needed: part N of section S
     is the JSON element #S-part-N of a one-file page, or, in a folder report (POEMETRIC.parts),
     in the file S-K.js of the folder beside the page, which a <script> tag loads (script tags
     load from file://, fetch does not) and which calls POEMETRIC_PART with its parts.
     POEMETRIC.part(S, N, done, fail): done(value), at once when the part is at hand; or
     fail(file) when its file does not load (the folder not kept beside the page). */
  var PARTS = POEMETRIC.parts;
  var partValues = {};  // "S/N": the part, once read
  var partWaits = {};  // file URL: [callback, ...] while it loads
  window.POEMETRIC_PART = function (build, sectionId, first, values) {
    if (!PARTS || build !== PARTS.build) { return; }  // a file of another build of the report
    values.forEach(function (value, i) { partValues[sectionId + "/" + (first + i)] = value; });
  };
  POEMETRIC.part = function (sectionId, n, done, fail) {
    var key = sectionId + "/" + n;
    if (!(key in partValues)) {
      var node = document.getElementById(sectionId + "-part-" + n);
      if (node) { partValues[key] = JSON.parse(node.textContent); }
    }
    var starts = PARTS && PARTS.sections[sectionId];
    if (key in partValues || !starts) { done(key in partValues ? partValues[key] : null); return; }
    var k = 0;
    while (k + 1 < starts.length && starts[k + 1] <= n) { k += 1; }
    var file = PARTS.dir + "/" + sectionId + "-" + k + ".js";
    var waiting = partWaits[file];
    var settle = function () { if (key in partValues) { done(partValues[key]); } else { fail(file); } };
    if (waiting) { waiting.push(settle); return; }
    partWaits[file] = [settle];
    var script = document.createElement("script");
    var finished = function () {
      var callbacks = partWaits[file];
      delete partWaits[file];  // a file that failed is tried again next time
      script.remove();
      callbacks.forEach(function (callback) { callback(); });
    };
    script.onload = finished;
    script.onerror = finished;
    script.src = encodeURIComponent(PARTS.dir) + "/" + encodeURIComponent(sectionId + "-" + k + ".js");
    document.head.appendChild(script);
  };

  // The header's height as drawn, for report.css's --header-h; 0 where it does not stick.
  var pageHeader = document.querySelector("header.top");
  function measureHeader() {
    var sticky = getComputedStyle(pageHeader).position === "sticky";
    var height = sticky ? Math.ceil(pageHeader.getBoundingClientRect().height) : 0;
    document.documentElement.style.setProperty("--header-h", height + "px");
  }
  measureHeader();
  window.addEventListener("resize", measureHeader);
  if (window.ResizeObserver) { new ResizeObserver(measureHeader).observe(pageHeader); }

  var B = POEMETRIC.sections.browser;
  if (!B) { return; }

  var list = document.getElementById("prompt-list");
  var view = document.getElementById("prompt-view");
  var search = document.getElementById("filter-search");
  var formFilter = document.getElementById("filter-form");
  var checkFilter = document.getElementById("filter-check");
  var authorBoxes = Array.prototype.slice.call(
    document.querySelectorAll("#filter-authors input[type=checkbox]"));
  var items = Array.prototype.slice.call(list.querySelectorAll("li[role=option]"));
  var count = document.getElementById("prompt-count");

  var CHECK_STATES = ["none", "pass", "fail"];  // the states in a prompt's `k` (author, state)
  var humanIndex = B.authors.findIndex(function (a) { return a.human; });
  var current = -1;

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function checkState(poem) {
    if (!poem.c || poem.c.ok === null || poem.c.ok === undefined) { return "none"; }
    return poem.c.ok ? "pass" : "fail";
  }

  function selectedAuthors() {
    var chosen = {};
    authorBoxes.forEach(function (box) { if (box.checked) { chosen[box.value] = true; } });
    return chosen;
  }

  function poemVisible(poem, authors, check) {
    if (!authors[poem.a]) { return false; }
    return !check || checkState(poem) === check;
  }

  function promptVisible(index, query, form, authors, check) {
    var prompt = B.prompts[index];
    if (form && prompt.form !== form) { return false; }
    if (query) {
      var hay = (prompt.title + " " + prompt.poet + " " + prompt.id).toLowerCase();
      if (hay.indexOf(query) < 0) { return false; }
    }
    if (!check) { return true; }
    for (var k = 0; k < prompt.k.length; k += 2) {
      if (authors[prompt.k[k]] && CHECK_STATES[prompt.k[k + 1]] === check) { return true; }
    }
    return false;
  }

  function applyFilters() {
    var query = search.value.trim().toLowerCase();
    var form = formFilter.value;
    var authors = selectedAuthors();
    var check = checkFilter.value;
    var shown = 0;
    items.forEach(function (item, index) {
      var visible = promptVisible(index, query, form, authors, check);
      item.hidden = !visible;
      if (visible) { shown += 1; }
    });
    count.textContent = shown + " of " + items.length + " prompts";
    if (current >= 0 && !items[current].hidden) {
      render(current);
    } else {
      // Nothing matching keeps the chosen prompt (hidden): cleared filters bring it back.
      var first = visibleItems()[0];
      if (first) { select(Number(first.dataset.index), false); } else { clearView(); }
    }
  }

  function clearView() {
    view.textContent = "";
    view.appendChild(el("p", "placeholder", "No prompt matches the filters."));
  }

  function visibleItems() {
    return items.filter(function (item) { return !item.hidden; });
  }

  function poemLines(text, flagged) {
    var ol = el("ol", "poem-lines");
    var number = 0;
    text.split("\n").forEach(function (line) {
      var li;
      if (!line.trim()) {
        li = el("li", "blank");
        li.setAttribute("aria-hidden", "true");
      } else {
        number += 1;
        li = el("li", flagged[number] ? "line flagged" : "line", line);
        li.value = number;
        if (flagged[number]) { li.title = flagged[number].join("\n"); }
      }
      ol.appendChild(li);
    });
    return ol;
  }

  function checkBlock(poem) {
    var box = el("div", "check");
    if (!poem.c) {
      box.appendChild(el("p", "summary muted", "No form check (run poemetric form run)."));
      return { node: box, flagged: {} };
    }
    var flagged = {};
    box.appendChild(el("p", "summary", poem.c.s || poem.c.e || "checked"));
    var scores = [];
    if (poem.c.f !== null) { scores.push("form " + poem.c.f.toFixed(2)); }
    if (poem.c.m !== null) { scores.push("meter " + poem.c.m.toFixed(2)); }
    if (poem.c.r !== null) { scores.push("rhyme " + poem.c.r.toFixed(2)); }
    if (scores.length) { box.appendChild(el("p", "scores muted", scores.join(" · "))); }
    if (poem.c.i.length) {
      var ul = el("ul", "issues");
      poem.c.i.forEach(function (issue) {
        var named = /\blines?\b/i.test(issue[1]);
        var where = issue[0].length && !named ? "line" + (issue[0].length > 1 ? "s " : " ") + issue[0].join(", ") + ": " : "";
        ul.appendChild(el("li", null, where + issue[1]));
        issue[0].forEach(function (n) { (flagged[n] = flagged[n] || []).push(issue[1]); });
      });
      box.appendChild(ul);
    }
    return { node: box, flagged: flagged };
  }

  function judgmentBlock(judgment) {
    var box = el("div", "judgment");
    var judge = B.judges[judgment.j] || { label: "judge" };
    box.appendChild(el("h5", null, judge.label + (judgment.n ? " (sample " + (judgment.n + 1) + ")" : "")));
    if (judgment.x) {
      var why = { not_judged: "Not judged (not a poem)",
                  pending: "Pending a re-ask (the next poemetric judge sends it)" }[judgment.x] ||
        "No judgment (failed)";
      box.appendChild(el("p", "judgment-missing muted", why + (judgment.e ? ": " + judgment.e : "")));
      return box;
    }
    var table = el("table", "scores");
    var head = el("tr"), body = el("tr");
    B.dimensions.forEach(function (d, i) {
      var th = el("th", null, d.abbr);
      th.title = d.q + ". " + d.long;
      head.appendChild(th);
      var v = judgment.v[i];
      body.appendChild(el("td", "score s" + v, v === 0 ? "N/A" : (v === null ? "–" : v)));
    });
    table.appendChild(head);
    table.appendChild(body);
    box.appendChild(table);
    var dl = el("dl", "comments");
    B.comments.forEach(function (c, i) {
      if (!judgment.c[i]) { return; }
      dl.appendChild(el("dt", null, "Why " + c.about.toLowerCase() + " (Q" + c.q + ")"));
      dl.appendChild(el("dd", null, judgment.c[i]));
    });
    if (dl.childNodes.length) { box.appendChild(dl); }
    return box;
  }

  function card(poem) {
    var author = B.authors[poem.a];
    var state = poem.x ? "error" : checkState(poem);
    var article = el("article", "poem-card " + state + (author.human ? " human" : ""));
    article.tabIndex = 0;
    article.dataset.author = author.id;
    article.dataset.check = state;
    var header = el("header");
    header.appendChild(el("h4", null, author.human ? author.label + " (original)" : author.label));
    if (poem.s) { header.appendChild(el("span", "sample", "sample " + (poem.s + 1))); }
    var badge = { pass: "passed", fail: "failed", none: "not checked", error: "no poem" }[state];
    header.appendChild(el("span", "badge " + state, badge));
    article.appendChild(header);
    if (poem.x) {
      article.appendChild(el("p", "error", "Generation failed: " + poem.x));
      return article;
    }
    var check = checkBlock(poem);
    article.appendChild(poemLines(poem.t, check.flagged));
    article.appendChild(check.node);
    poem.j.forEach(function (judgment) { article.appendChild(judgmentBlock(judgment)); });
    return article;
  }

  // Draw prompt `index`: at once when its poems are at hand, else its heading with "Loading"
  // (the view aria-busy) and the poems when their file has loaded, if it is still the one chosen.
  function render(index) {
    var drawn = false;
    POEMETRIC.part("browser", index, function (poems) {
      drawn = true;
      if (index === current) { draw(index, poems || []); }
    }, function (file) {
      drawn = true;
      if (index === current) { draw(index, null, file); }
    });
    if (!drawn) {
      view.setAttribute("aria-busy", "true");
      drawHead(B.prompts[index]);
      view.appendChild(el("p", "placeholder loading", "Loading the poems…"));
    }
  }

  function drawHead(prompt) {
    view.textContent = "";
    var head = el("header", "prompt-head");
    head.appendChild(el("h3", null, prompt.title || prompt.id));
    var meta = el("p", "meta", prompt.form + " · ");
    meta.appendChild(el("bdi", null, prompt.poet));  // a right-to-left name keeps its place
    meta.appendChild(document.createTextNode(" · " + prompt.id));
    head.appendChild(meta);
    var details = el("details", "prompt-text");
    details.appendChild(el("summary", null, "Generation prompt"));
    details.appendChild(el("pre", null, prompt.text));
    head.appendChild(details);
    view.appendChild(head);
  }

  // `poems` (a prompt's poems, sorted by author, then sample); null when `missing` (the file
  // that holds them) did not load.
  function draw(index, poems, missing) {
    var prompt = B.prompts[index];
    var started = performance.now();
    var authors = selectedAuthors();
    var check = checkFilter.value;
    drawHead(prompt);
    view.dataset.prompt = String(index);
    view.removeAttribute("aria-busy");
    if (!poems) {
      var page = decodeURIComponent(location.pathname.split("/").pop() || "the page");
      view.appendChild(el("p", "error", "The poems of this prompt did not load: they are in " +
        missing + ", in the folder " + PARTS.dir + " that belongs beside " + page + ". Keep " +
        "the two together (copy or zip the folder that holds both)."));
      ready();
      return;
    }
    var human = poems.filter(function (p) { return p.a === humanIndex; });
    var others = poems.filter(function (p) { return p.a !== humanIndex && poemVisible(p, authors, check); });
    var layout = el("div", "prompt-layout");
    var original = el("div", "original");
    if (human.length) {
      human.forEach(function (p) { original.appendChild(card(p)); });
    } else {
      var stub = el("article", "poem-card human");
      stub.appendChild(el("header")).appendChild(el("h4", null, "Human original"));
      stub.appendChild(poemLines(prompt.original || "", {}));
      original.appendChild(stub);
    }
    layout.appendChild(original);
    var grid = el("div", "poem-grid");
    if (!others.length) {
      grid.appendChild(el("p", "placeholder", "No poem by the chosen authors matches the filters."));
    }
    others.forEach(function (p) { grid.appendChild(card(p)); });
    layout.appendChild(grid);
    view.appendChild(layout);
    view.dataset.renderMs = (performance.now() - started).toFixed(1);
    ready();
  }

  // The page is ready when the first prompt is drawn (data-ready, the mark bench/ measures).
  var isReady = false;
  function ready() {
    if (isReady) { return; }
    isReady = true;
    document.documentElement.dataset.ready = "true";
    performance.mark("poemetric-report-ready");
  }

  // `quiet` (opening the page without a #prompt link): neither scroll to the browser nor
  // replace the address's fragment, so the page opens at its top or at the section linked to.
  function select(index, focus, quiet) {
    if (current >= 0) { items[current].setAttribute("aria-selected", "false"); }
    current = index;
    var item = items[index];
    item.setAttribute("aria-selected", "true");
    list.setAttribute("aria-activedescendant", item.id);
    if (!quiet) { item.scrollIntoView({ block: "nearest" }); }
    if (focus) { list.focus({ preventScroll: true }); }
    if (!quiet && history.replaceState) { history.replaceState(null, "", "#prompt=" + encodeURIComponent(B.prompts[index].link || B.prompts[index].id)); }
    render(index);
  }

  function step(delta) {
    var visible = visibleItems();
    if (!visible.length) { return; }
    var position = visible.indexOf(items[current]);
    var next = position < 0 ? 0 : Math.min(visible.length - 1, Math.max(0, position + delta));
    select(Number(visible[next].dataset.index), true);
  }

  list.addEventListener("click", function (event) {
    var item = event.target.closest("li[role=option]");
    if (!item) { return; }
    select(Number(item.dataset.index), true);
    // Stacked (below 960 px) the poems are under the list, often below the screen: a click or
    // tap brings them up. Side by side they are in view, and the page stays where it is.
    if (view.getBoundingClientRect().top > window.innerHeight - 48) {
      view.scrollIntoView({ block: "start" });
    }
  });

  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "select" || tag === "textarea") {
      if (event.key === "Escape") {
        event.target.blur();  // a filter of the browser hands the keys back to its prompt list
        if (document.getElementById("poem-browser").contains(event.target)) { list.focus({ preventScroll: true }); }
      }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    // Arrows, Home and End step the browser only from inside it (the prompt list, a poem):
    // elsewhere they scroll the page. j, k and / work from anywhere outside a field.
    var inBrowser = document.getElementById("poem-browser").contains(event.target);
    var letter = event.key === "j" || event.key === "k" || event.key === "/";
    if (!inBrowser && !(letter && event.target === document.body)) { return; }
    var visible = visibleItems();
    if (event.key === "j" || event.key === "ArrowDown") { step(1); }
    else if (event.key === "k" || event.key === "ArrowUp") { step(-1); }
    else if (event.key === "Home" && visible.length) { select(Number(visible[0].dataset.index), true); }
    else if (event.key === "End" && visible.length) { select(Number(visible[visible.length - 1].dataset.index), true); }
    else if (event.key === "/") { search.focus(); }
    else { return; }
    event.preventDefault();
  });

  [search, formFilter, checkFilter].forEach(function (input) {
    input.addEventListener("input", applyFilters);
  });
  authorBoxes.forEach(function (box) { box.addEventListener("change", applyFilters); });
  document.querySelectorAll("#filter-authors button[data-authors]").forEach(function (button) {
    button.addEventListener("click", function () {
      var on = button.dataset.authors === "all";
      authorBoxes.forEach(function (box) { box.checked = on; });
      applyFilters();
    });
  });

  var wanted = /prompt=([^&]+)/.exec(location.hash);
  var start = -1;
  if (wanted) {
    var id = null;
    try { id = decodeURIComponent(wanted[1]); } catch (error) { id = null; }  // a link cut short
    // a prompt's own link (`link`: a poem with several prompts), else a poem's id: its first
    start = B.prompts.findIndex(function (p) { return p.link === id; });
    if (start < 0) { start = B.prompts.findIndex(function (p) { return p.id === id; }); }
  }
  count.textContent = items.length + " of " + items.length + " prompts";
  if (items.length) { select(Math.max(start, 0), false, start < 0); } else { ready(); }
})();
