// promptfoo assertion, warm path (opt-in): the same judge as video_probes.py, run in one long-lived Python
// worker per eval instead of a new Python process per test. Use: type: javascript, value: file://assertions/video_probes.js
module.exports = require('../reeljudge/warm/client.js').entry(__filename);
