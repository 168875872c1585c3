"""``reeljudge init``: a working promptfoo project in the user's folder, from packaged templates."""
