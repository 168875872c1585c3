// promptfoo assertion, warm path (opt-in): the same judge as gecko.py, run in one long-lived Python
// worker per eval instead of a new Python process per test. Use: type: javascript, value: file://assertions/gecko.js
module.exports = require('../reeljudge/warm/client.js').entry(__filename);
