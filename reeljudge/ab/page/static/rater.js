// reeljudge A/B rating page: synchronised A/B player, watch log, protocol form, submit.
// No build step, no library. The server checks everything again; this page only helps the rater.
"use strict";
(() => {
  const token = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
  const api = (path) => `/api/r/${encodeURIComponent(token)}/${path}`;
  const $ = (sel) => document.querySelector(sel);
  const t0 = performance.now();
  const SIDES = ["A", "B"];
  const videos = { A: $("#video-A"), B: $("#video-B") };
  let protocol = null, task = null, log = [], submissionId = null, inFlight = false;
  let plays = { A: 0, B: 0 }, covered = { A: 0, B: 0 }, lastT = { A: 0, B: 0 }, lastWall = { A: 0, B: 0 };
  let finished = { A: false, B: false };  // this pass of the clip has been counted (loop mode restarts both)
  let sessionTasks = 0, sessionStart = Date.now(), breakRule = { every: 15, minutes: 25 }, sessionTotal = 0, shownOnce = false;
  let clipError = { A: null, B: null };  // why a clip did not load (shown over it, with a retry), or null
  let clipWaiting = { A: false, B: false };  // the page tries that clip again by itself (after the server's Retry-After)

  const now = () => Math.round(performance.now() - t0);
  const MAX_EVENTS = 500;  // the server takes a log of at most this many events (reeljudge/ab/page/watch.py): the latest are kept
  const record = (side, event, value) => {
    const v = side === "both" ? videos.A : videos[side];
    log.push({ side, event, t: Math.max(0, +(v.currentTime || 0).toFixed(3)), at_ms: now(), value: value ?? null });
    if (log.length > MAX_EVENTS) log.shift();
  };
  const newId = () => (crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random().toString(16).slice(2)}`).replace(/[^A-Za-z0-9_.:-]/g, "");

  // ---- talking to the server: a busy server (503, 429) or a dropped connection is tried again, and the page says so ----
  // (the retry policy is the page's loader's, in rater.html: it retries this script itself when the server refuses it)
  const { retryAfter, refusal } = window.reeljudgeBoot;
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);
  function netStatus(text) { const n = $("#net-status"); n.textContent = text; n.hidden = !text; }
  async function request(path, init, what) {
    for (let attempt = 1; ; attempt++) {
      let res = null, reason;
      try {
        res = await fetch(api(path), { cache: "no-store", ...init });
        if (res.status !== 503 && res.status !== 429) { netStatus(""); return res; }
        reason = refusal(res.status);
      } catch (err) {
        reason = "the server could not be reached";
      }
      const wait = retryAfter(res, attempt);
      netStatus(`${capital(reason)}: trying ${what} again in ${Math.ceil(wait)} s (attempt ${attempt + 1}). Your answers are kept.`);
      await sleep(wait * 1000);
    }
  }

  // ---- loading a task ----
  async function load() {
    const res = await request("task", {}, "to load your task");
    if (!res.ok) return fatal(res.status === 404 ? "This invite link is not valid." : `The server answered ${res.status}.`);
    const body = await res.json();
    if (body.notice) notice(body.notice);
    protocol = body.protocol; breakRule = body.break || breakRule;
    // the total is the session's first count, so it does not shift as other raters take pairs
    sessionTotal = Math.max(sessionTotal, body.progress.total);
    const total = body.task ? sessionTotal : body.progress.done;
    $("#progress").textContent = `Your progress: ${body.progress.done} of ${total} tasks done`;
    $("#progress").title = "The total can only shrink when other raters complete pairs before you reach them.";
    if (!body.task) { $("#task").hidden = true; $("#done").hidden = false; return; }
    if (!shownOnce) $("#instructions").open = body.progress.done === 0;  // open on a rater's first task
    shownOnce = true;
    show(body.task);
  }
  function notice(text) { $("#notice-text").textContent = text; $("#notice").hidden = !text; }
  $("#notice-dismiss").addEventListener("click", () => notice(""));

  function show(t) {
    task = t; log = []; submissionId = newId();
    plays = { A: 0, B: 0 }; covered = { A: 0, B: 0 }; lastT = { A: 0, B: 0 }; finished = { A: false, B: false };
    $("#prompt").textContent = t.prompt;
    $("#family").textContent = `(${t.family_label})`;
    $("#instruction-list").replaceChildren(...protocol.instructions.map((s) => el("li", {}, s)));
    for (const side of SIDES) { clipTries[side] = 0; loadClip(side); }
    $("#source-box").hidden = !t.source;
    if (t.source) $("#video-source").src = t.source.url;
    buildForm(t.family);
    for (const option of $("#rate").options) option.hidden = option.disabled = Number(option.value) > (t.max_speed || 2);
    updatePlays(); clearMessages();
    $("#submit-state").textContent = "";
    $("#task").hidden = false; $("#done").hidden = true;
  }

  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    node.append(...children);
    return node;
  };
  const applies = (item, family) => !item.families || item.families.includes(family);

  function buildForm(family) {
    $("#verdict").reset();
    const primary = $("#primary_tag");
    primary.replaceChildren(el("option", { value: "" }, "— choose one —"));
    // each group one block (its title and its tags never split across columns), marked with the winner it is for
    const columns = el("div", { class: "tag-columns" });
    $("#secondary").replaceChildren(el("div", { class: "group-title" }, "Secondary reasons (0 to 3)"), columns);
    for (const group of protocol.tag_groups.filter((g) => applies(g, family))) {
      const scope = group.scope || "loser";
      const og = el("optgroup", { label: group.label, "data-scope": scope });
      const box = el("div", { class: "tag-group", "data-scope": scope, "data-group": group.id }, el("div", { class: "group" }, group.label));
      for (const tag of group.tags) {
        og.append(el("option", { value: tag.id }, tag.label));
        box.append(el("label", {}, el("input", { type: "checkbox", name: "secondary", value: tag.id }), ` ${tag.label}`));
      }
      primary.append(og);
      columns.append(box);
    }
    const body = $("#ratings tbody");
    body.replaceChildren();
    for (const dim of protocol.dimensions.filter((d) => applies(d, family))) {
      const row = el("tr", { "data-dimension": dim.id });
      const anchors = Object.entries(dim.anchors).sort(([a], [b]) => Number(b) - Number(a)).map(([k, v]) => el("li", {}, el("b", {}, k), ` ${v}`));
      row.append(el("th", { scope: "row" }, dim.label, el("ul", { class: "anchors" }, ...anchors)));
      for (const side of SIDES) {
        const cell = el("td", { role: "radiogroup", "aria-label": `${dim.label}, clip ${side}`, "data-label": `Clip ${side}` });
        for (let value = 1; value <= 5; value++) {
          cell.append(el("label", {}, el("input", { type: "radio", name: `r-${side}-${dim.id}`, value: String(value), "data-side": side, "data-dimension": dim.id }), String(value)));
        }
        row.append(cell);
      }
      row.append(el("td", { class: "msg", "data-for": `ratings-${dim.id}` }));
      body.append(row);
    }
    offerTags();
  }

  // the reasons offered follow the winner: a tie's only for a tie, a loser's failures only with a winner (and before one is
  // chosen); a tag already chosen stays on show whatever the winner, so the rater sees it (and the message on it) and can undo it
  function offerTags() {
    const winner = document.querySelector("input[name=winner]:checked");
    const wanted = winner && winner.value === "tie" ? "tie" : "loser";
    const primary = $("#primary_tag").value;
    for (const og of $("#primary_tag").querySelectorAll("optgroup")) {
      og.hidden = og.dataset.scope !== wanted && ![...og.children].some((o) => o.value === primary);
      for (const option of og.children) option.hidden = og.hidden;  // (a select's keyboard and popup skip each)
    }
    for (const box of document.querySelectorAll("#secondary .tag-group")) {
      box.hidden = box.dataset.scope !== wanted && !box.querySelector("input:checked");
    }
  }

  // ---- the form: read, check (mirror of the server's rules), show messages ----
  function readForm() {
    const winner = document.querySelector("input[name=winner]:checked");
    const ratings = { A: {}, B: {} };
    for (const input of document.querySelectorAll("#verdict input[type=radio][data-side]:checked")) {
      ratings[input.dataset.side][input.dataset.dimension] = Number(input.value);
    }
    return {
      winner: winner ? winner.value : null,
      primary_tag: $("#primary_tag").value || null,
      secondary_tags: [...document.querySelectorAll("input[name=secondary]:checked")].map((i) => i.value),
      ratings,
      note: $("#note").value.trim() || null,
    };
  }

  function check(form) {
    const out = [], rules = protocol.rules, fam = task.family;
    const tags = {};
    for (const g of protocol.tag_groups) for (const t of g.tags) tags[t.id] = { ...t, scope: g.scope || "loser", families: g.families };
    if (!["A", "B", "tie"].includes(form.winner)) out.push(["winner", "Choose the winner: A, B or Tie."]);
    if (!form.primary_tag) out.push(["primary_tag", "Choose exactly one primary reason tag."]);
    const sec = form.secondary_tags;
    if (sec.length > rules.secondary_tags_max) out.push(["secondary_tags", `Choose at most ${rules.secondary_tags_max} secondary tags (you chose ${sec.length}).`]);
    if (form.primary_tag && sec.includes(form.primary_tag)) out.push(["secondary_tags", "The primary tag cannot also be a secondary tag."]);
    const slots = (form.primary_tag ? [["primary_tag", form.primary_tag]] : []).concat(sec.map((t) => ["secondary_tags", t]));
    for (const [slot, id] of slots) {
      const tag = tags[id];
      if (!tag) out.push([slot, `Unknown reason tag '${id}'.`]);
      else if (!applies(tag, fam)) out.push([slot, `“${tag.label}” is for ${tag.families.join(", ")} tasks only; this is a ${fam} task.`]);
      else if (form.winner === "tie" && tag.scope === "loser") out.push([slot, `A tie has no loser: “${tag.label}” names a failure of the losing clip. Pick a tie reason, or pick a winner.`]);
      else if ((form.winner === "A" || form.winner === "B") && tag.scope === "tie") out.push([slot, `“${tag.label}” is a reason for a tie, but you chose ${form.winner} as the winner.`]);
    }
    for (const side of SIDES) {
      for (const [dimId, value] of Object.entries(form.ratings[side])) {
        const dim = protocol.dimensions.find((d) => d.id === dimId);
        if (!dim) out.push([`ratings.${side}.${dimId}`, `Unknown dimension '${dimId}'.`]);
        else if (!applies(dim, fam)) out.push([`ratings.${side}.${dimId}`, `${dim.label} is rated only on ${dim.families.join(", ")} tasks; this is a ${fam} task.`]);
      }
      for (const dim of protocol.dimensions.filter((d) => applies(d, fam))) {
        if (rules.ratings_required && !(dim.id in form.ratings[side])) out.push([`ratings.${side}.${dim.id}`, `Rate ${dim.label} for clip ${side}.`]);
      }
    }
    if (form.note && form.note.length > rules.note_max_chars) out.push(["note", `Keep the note under ${rules.note_max_chars} characters (it has ${form.note.length}).`]);
    for (const side of SIDES) {
      if (plays[side] < task.min_full_plays) out.push(["watch", `Play clip ${side} to the end ${task.min_full_plays} times before submitting (so far ${plays[side]}).`]);
    }
    return out.map(([field, message]) => ({ field, message }));
  }

  // why Submit is locked, or what is still missing: shown beside the button at all times, in full and in short (a phone's
  // bar shows the short one, so the bar stays two lines high): [long, short]
  function lockReason() {
    if (!task) return ["", ""];
    const need = task.min_full_plays, long = [], brief = [];
    const broken = SIDES.filter((s) => clipError[s] && !clipWaiting[s]), waiting = SIDES.filter((s) => clipWaiting[s]);
    if (broken.length) { long.push(`Clip ${broken.join(" and clip ")} did not load: press Retry on it.`); brief.push(`Retry clip ${broken.join(" and ")}.`); }
    if (waiting.length) { long.push(`Clip ${waiting.join(" and clip ")} is tried again by itself.`); brief.push(`Clip ${waiting.join(" and ")}: loading again.`); }
    const short = SIDES.filter((s) => plays[s] < need && !clipError[s]);
    if (short.length) {
      long.push(`Submit unlocks when you have played ${short.map((s) => `clip ${s} ${need - plays[s]} more time${need - plays[s] === 1 ? "" : "s"}`).join(" and ")} to the end.`);
      brief.push(`Play ${short.map((s) => `${s} ${need - plays[s]}×`).join(", ")} more.`);
    }
    const missing = check(readForm()).filter((v) => v.field !== "watch");
    const names = [...new Set(missing.map((v) => v.field.startsWith("ratings.") ? "ratings" : v.field))];
    const ratingsLeft = missing.filter((v) => v.field.startsWith("ratings.")).length;
    const ratings = `${ratingsLeft} rating${ratingsLeft === 1 ? "" : "s"}`;
    const label = { winner: "the winner", primary_tag: "a primary reason", secondary_tags: "secondary reasons", note: "the note", ratings };
    const word = { winner: "winner", primary_tag: "primary reason", secondary_tags: "secondary reasons", note: "note", ratings };
    if (names.length) {
      long.push(`Still to fix or fill in: ${names.map((n) => label[n] || n).join(", ")}.`);
      brief.push(`To do: ${names.map((n) => word[n] || n).join(", ")}.`);
    }
    return [long.join(" "), brief.join(" ")];
  }
  function showLockReason() {
    const [long, brief] = lockReason();
    $("#lock-reason").replaceChildren(el("span", { class: "long" }, long), el("span", { class: "short" }, brief));
  }
  function formChanged() { offerTags(); showLockReason(); }

  function clearMessages() { for (const m of document.querySelectorAll(".msg")) m.textContent = ""; }
  // origin "page": this page's own check, withdrawn as the rater fixes it; "server": stays until the next submit
  function showMessages(violations, origin) {
    clearMessages();
    for (const v of violations) {
      let target = document.querySelector(`.msg[data-for="${v.field}"]`);
      const rating = v.field.match(/^ratings\.(A|B)\.(.+)$/);
      if (!target && rating) target = document.querySelector(`.msg[data-for="ratings-${CSS.escape(rating[2])}"]`) || document.querySelector('.msg[data-for="ratings"]');
      if (!target) target = document.querySelector('.msg[data-for="record"]');
      target.append(el("div", { class: "violation", "data-field": v.field, "data-origin": origin }, v.message));
    }
  }

  async function submit() {
    if (!task || inFlight) return;
    const form = readForm();
    const problems = check(form);
    if (problems.length) { showMessages(problems, "page"); $("#submit-state").textContent = "Not sent: see the messages above."; return; }
    inFlight = true; $("#submit-state").textContent = "Sending…";
    try {
      // the same submission id on every try: a retry after a dropped answer is stored once
      const res = await request(`submit/${encodeURIComponent(task.assignment_id)}`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ assignment_id: task.assignment_id, submission_id: submissionId, form, watch: { log } }),
      }, "to send your answer");
      const body = await res.json().catch(() => ({}));
      if (res.status === 422) { showMessages(body.violations || [], "server"); $("#submit-state").textContent = "Not stored: see the messages above."; return; }
      if (res.status === 409 && body.withdrawn) { notice(body.error); $("#submit-state").textContent = ""; await load(); return; }
      if (!res.ok) { $("#submit-state").textContent = body.error || `The server answered ${res.status}; try again.`; return; }
      sessionTasks += 1;
      notice("");
      maybeBreak();
      await load();
    } catch (err) {
      $("#submit-state").textContent = "Network error: your answer is kept, press Submit again.";
    } finally { inFlight = false; }
  }

  function maybeBreak() {
    const minutes = (Date.now() - sessionStart) / 60000;
    if (sessionTasks >= breakRule.every || minutes >= breakRule.minutes) $("#break-banner").hidden = false;
  }
  $("#break-dismiss").addEventListener("click", () => { $("#break-banner").hidden = true; sessionTasks = 0; sessionStart = Date.now(); });

  // ---- the synchronised player ----
  // A play counts as full when the media time actually played (not skipped) covers 85 % of the
  // clip: each advance is credited only up to the wall-clock time that passed at the chosen speed.
  function credit(side, delta) {
    const wall = (performance.now() - lastWall[side]) / 1000;
    const allowed = wall * videos[side].playbackRate * 1.25 + 0.05;
    if (delta > 0) covered[side] += Math.min(delta, allowed);
  }
  const master = () => videos.A;
  const fps = () => (task && task.clips.A.fps) || 24;
  const anyPlaying = () => SIDES.some((s) => !videos[s].paused && !videos[s].ended);

  function playPause() {
    if (anyPlaying()) { for (const s of SIDES) videos[s].pause(); record("both", "pause"); }
    else {
      for (const s of SIDES) { if (videos[s].ended) { videos[s].currentTime = 0; lastT[s] = 0; finished[s] = false; } videos[s].play().catch(() => {}); }
      record("both", "play");
    }
    syncButton();
  }
  function syncButton() { $("#play").replaceChildren(anyPlaying() ? "Pause" : "Play", el("span", { class: "hint" }, " (K)")); }
  function seekTo(time, event, value) {
    for (const s of SIDES) {
      const v = videos[s];
      v.currentTime = Math.max(0, Math.min(time, (v.duration || time) - 0.001));
      lastT[s] = v.currentTime;
    }
    if (event) record("both", event, value);
  }
  function step(frames) { for (const s of SIDES) videos[s].pause(); seekTo(master().currentTime + frames / fps(), "step", frames); syncButton(); }
  function setRate(rate) { rate = Math.min(rate, (task && task.max_speed) || 2); for (const s of SIDES) videos[s].playbackRate = rate; $("#rate").value = String(rate); record("both", "rate", rate); }
  function toggleLoop() { $("#loop").checked = !$("#loop").checked; record("both", "loop", $("#loop").checked); }

  for (const side of SIDES) {
    const v = videos[side];
    v.addEventListener("timeupdate", () => {
      if (!v.seeking && (!v.paused || v.ended)) credit(side, v.currentTime - lastT[side]);
      lastT[side] = v.currentTime; lastWall[side] = performance.now();
      if (side === "A") {
        $("#time").textContent = `${v.currentTime.toFixed(2)} s`;
        if (v.duration) $("#scrub").value = String(Math.round((v.currentTime / v.duration) * 1000));
        const other = videos.B;
        const drift = v.currentTime - other.currentTime;
        if (!v.paused && !other.paused && !other.ended && Math.abs(drift) > 0.2) {
          if (drift > 0 && drift < 0.5) covered.B += drift;  // a sync nudge, not a skip: B was on screen with A
          other.currentTime = v.currentTime; lastT.B = v.currentTime;
        }
      }
    });
    v.addEventListener("seeked", () => { lastT[side] = v.currentTime; lastWall[side] = performance.now(); });
    v.addEventListener("play", () => { lastWall[side] = performance.now(); finished[side] = false; });
    v.addEventListener("ended", () => {
      if (!v.ended) return;  // a stale event: loop mode already restarted this clip after counting its pass
      finishPass(side);
      if (SIDES.every((s) => videos[s].ended || videos[s].paused)) {
        if ($("#loop").checked) {
          for (const s of SIDES) if (videos[s].ended) finishPass(s);  // count the other clip's pass before its restart
          for (const s of SIDES) { videos[s].currentTime = 0; lastT[s] = 0; covered[s] = 0; finished[s] = false; videos[s].play().catch(() => {}); }
        }
        syncButton();
      }
    });
    v.addEventListener("ratechange", () => record(side, "rate", v.playbackRate));
  }

  // one pass of a clip that reached its end: counted once, however its ended event and a loop restart interleave
  function finishPass(side) {
    if (finished[side]) return;
    const v = videos[side];
    finished[side] = true;
    credit(side, v.duration - lastT[side]);
    record(side, "ended");
    if (v.duration && covered[side] >= 0.85 * v.duration) { plays[side] += 1; record(side, "full_play", plays[side]); }
    covered[side] = 0; lastT[side] = 0;
    updatePlays();
  }

  // ---- a clip that does not load says why, over the clip, and is tried again ----
  // A video element's error carries no HTTP status, so the page asks the server (HEAD) once the clip failed: refused (429)
  // or busy (503), or not reached, the page says so and loads the clip again after Retry-After (else a backoff); answered
  // now (the refusal has passed, a connection dropped), the clip is loaded again at once, and only a clip the server sends
  // but that fails CLIP_TRIES times is one "your browser could not play"; any other answer waits for the rater's Retry.
  const CLIP_TRIES = 3;
  const clipTries = { A: 0, B: 0 }, clipTimer = { A: null, B: null };
  function clipFailed(side, message, waiting = false) {
    clipError[side] = message; clipWaiting[side] = Boolean(message) && waiting;
    const box = $(`#clip-error-${side}`);
    box.querySelector("p").textContent = message || "";
    box.querySelector("button").textContent = waiting ? `Retry clip ${side} now` : `Retry clip ${side}`;
    box.hidden = !message;
    if (task) updatePlays();
  }
  function loadClip(side) {
    clearTimeout(clipTimer[side]); clipTimer[side] = null;
    clipFailed(side, null);
    videos[side].src = task.clips[side].url;
    videos[side].load();
  }
  async function diagnose(side) {
    const v = videos[side], url = task && task.clips[side].url;
    if (!v.error || !url) return;
    const attempt = ++clipTries[side];
    let res = null, reason = "the server could not be reached";
    try { res = await fetch(url, { method: "HEAD", cache: "no-store" }); } catch (err) { /* said below */ }
    if (!task || task.clips[side].url !== url) return;  // the page moved on to another task meanwhile
    if (res && res.ok) {
      if (attempt < CLIP_TRIES) loadClip(side);
      else clipFailed(side, `Clip ${side} could not be played: the server sends it, but your browser could not play it (media error ${v.error.code}).`);
      return;
    }
    if (res && res.status !== 429 && res.status !== 503) { clipFailed(side, `Clip ${side} could not be loaded: the server answered ${res.status}.`); return; }
    if (res) reason = refusal(res.status);
    const wait = retryAfter(res, attempt);
    clipFailed(side, `Clip ${side} could not be loaded: ${reason}. Trying again in ${Math.ceil(wait)} s (attempt ${attempt + 1}).`, true);
    clipTimer[side] = setTimeout(() => loadClip(side), wait * 1000);
  }
  for (const side of SIDES) {
    videos[side].addEventListener("error", () => diagnose(side));
    videos[side].addEventListener("loadeddata", () => { clipTries[side] = 0; });
    $(`#clip-error-${side} button`).addEventListener("click", () => loadClip(side));
  }

  function updatePlays() {
    const need = task ? task.min_full_plays : 2;
    for (const s of SIDES) {
      const span = $(`#plays-${s}`);
      span.textContent = `played fully ${plays[s]}× of ${need}`;
      span.classList.toggle("ok", plays[s] >= need);
    }
    const ready = task && SIDES.every((s) => plays[s] >= need);
    $("#submit").disabled = !ready;
    for (const m of document.querySelectorAll('#watch-msg .violation[data-origin="page"]')) m.remove();
    showLockReason();
  }

  $("#play").addEventListener("click", playPause);
  $("#step-back").addEventListener("click", () => step(-1));
  $("#step-fwd").addEventListener("click", () => step(1));
  // dragging the scrubber moves both clips at once; one seek is logged where it is let go
  $("#scrub").addEventListener("input", (e) => { const d = master().duration || 0; seekTo((Number(e.target.value) / 1000) * d, null); });
  $("#scrub").addEventListener("change", (e) => { const d = master().duration || 0; seekTo((Number(e.target.value) / 1000) * d, "seek"); });
  $("#rate").addEventListener("change", (e) => setRate(Number(e.target.value)));
  $("#loop").addEventListener("change", () => record("both", "loop", $("#loop").checked));
  $("#verdict").addEventListener("submit", (e) => { e.preventDefault(); submit(); });
  $("#verdict").addEventListener("input", formChanged);
  $("#verdict").addEventListener("change", formChanged);
  $("#help-button").addEventListener("click", () => { $("#help").hidden = !$("#help").hidden; });

  // ---- keyboard ----
  const typing = (t) => t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type === "text"));
  const formControl = (t) => t && ["INPUT", "SELECT", "TEXTAREA", "BUTTON"].includes(t.tagName);
  const focusFirst = (sel) => { const n = document.querySelector(sel); if (n) n.focus(); };
  document.addEventListener("keydown", (e) => {
    const t = e.target;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); submit(); return; }
    if (typing(t) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (t && t.matches && t.matches("input[type=radio][data-side]") && /^[1-5]$/.test(e.key)) {
      const pick = document.querySelector(`input[name="${t.name}"][value="${e.key}"]`);
      if (pick) { pick.checked = true; pick.focus(); }
      showLockReason();  // a key sets the radio without an input event: the text beside Submit follows it here
      e.preventDefault(); return;
    }
    if (t && t.tagName === "SELECT") return;
    const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
    const winner = { a: "A", b: "B", t: "tie" }[key];
    const actions = {
      k: playPause, ",": () => step(-1), ".": () => step(1), 0: () => seekTo(0, "seek", 0),
      l: toggleLoop, s: () => { const r = Number($("#rate").value); setRate(r === 1 ? 0.5 : r === 0.5 ? 0.25 : 1); },
      p: () => $("#primary_tag").focus(), g: () => focusFirst("input[name=secondary]"),
      r: () => focusFirst("#ratings input[type=radio]"), n: () => $("#note").focus(), "?": () => { $("#help").hidden = !$("#help").hidden; },
    };
    if (winner) { const input = document.querySelector(`input[name=winner][value="${winner}"]`); input.checked = true; input.focus(); formChanged(); e.preventDefault(); return; }
    if (!formControl(t)) {
      if (key === " ") { e.preventDefault(); playPause(); return; }
      if (key === "ArrowLeft" || key === "ArrowRight") { e.preventDefault(); seekTo(master().currentTime + (key === "ArrowLeft" ? -1 : 1), "seek"); return; }
    }
    if (actions[key]) { e.preventDefault(); actions[key](); }
  });

  // focus and scrolling stop short of the sticky players (while they stick) and of the Submit bar: what the rater goes to is
  // never under them
  function scrollPadding() {
    const stage = $("#stage"), style = document.documentElement.style;
    style.scrollPaddingTop = getComputedStyle(stage).position === "sticky" ? `${stage.offsetHeight + 8}px` : "";
    style.scrollPaddingBottom = `${$("#submit-row").offsetHeight + 8}px`;
  }
  const resized = new ResizeObserver(scrollPadding);
  resized.observe($("#stage")); resized.observe($("#submit-row"));

  function fatal(message) { $("#task").hidden = true; const f = $("#fatal"); f.hidden = false; f.textContent = message; }
  window.reeljudgeAB = { state: () => ({ plays: { ...plays }, log: log.slice(), task, submissionId, clipError: { ...clipError } }) };
  load().catch((err) => fatal(`Could not load the task: ${err}`));
})();
