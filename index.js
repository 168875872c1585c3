// The npm package `reeljudge`: promptfoo assertions on the warm path, run by the Python reeljudge
// installed in REELJUDGE_PYTHON (else PROMPTFOO_PYTHON, else the first python3 on PATH).
//   assert:
//     - type: javascript
//       value: package:reeljudge:filmability   # or gecko, videoProbes, abJudge
//       config: {judge: local}
// The client is the one warm client (reeljudge/warm/client.js), shared with a clone's assertions/*.js.
'use strict';

const { moduleEntry } = require('./reeljudge/warm/client.js');

// One line per row of the judge table (reeljudge/judging.py), in its order; tests/verdicts/test_judge_table.py holds them equal.
exports.filmability = moduleEntry('filmability', 'filmability', 'reeljudge.assertions.filmability');
exports.videoProbes = moduleEntry('videoProbes', 'video_probes', 'reeljudge.assertions.video_probes');
exports.gecko = moduleEntry('gecko', 'gecko', 'reeljudge.assertions.gecko');
exports.abJudge = moduleEntry('abJudge', 'ab_judge', 'reeljudge.assertions.ab_judge');
