"""The fixed tag vocabulary for Gecko questions and how free-form keyword types map onto it.

QuestionSet generators write keyword types in their own words ("spatial relation", "colour",
"activity"); scores are broken down by tag, so every type is normalised to one of ``TAGS``.
"""

from __future__ import annotations

import re

TAGS: tuple[str, ...] = (
    "entity",
    "object",
    "attribute",
    "action",
    "color",
    "counting",
    "material",
    "shape",
    "spatial",
    "temporal",
    "style",
    "scene",
    "text",
    "other",
)

# words that name a tag, checked word by word against a normalised type (first hit wins)
_SYNONYMS: dict[str, str] = {
    "entity": "entity", "entities": "entity", "person": "entity", "people": "entity", "animal": "entity",
    "character": "entity", "subject": "entity", "human": "entity", "creature": "entity",
    "object": "object", "objects": "object", "thing": "object", "item": "object", "prop": "object",
    "attribute": "attribute", "attributes": "attribute", "size": "attribute", "texture": "attribute",
    "state": "attribute", "property": "attribute", "appearance": "attribute", "clothing": "attribute",
    "action": "action", "actions": "action", "activity": "action", "motion": "action", "movement": "action",
    "verb": "action", "event": "action", "interaction": "action",
    "color": "color", "colour": "color", "colors": "color", "colours": "color",
    "counting": "counting", "count": "counting", "number": "counting", "quantity": "counting",
    "numeracy": "counting",
    "material": "material", "materials": "material",
    "shape": "shape", "shapes": "shape", "form": "shape",
    "spatial": "spatial", "position": "spatial", "relation": "spatial", "relationship": "spatial",
    "direction": "spatial",
    "temporal": "temporal", "time": "temporal", "season": "temporal", "order": "temporal",
    "sequence": "temporal", "duration": "temporal", "speed": "temporal",
    "style": "style", "camera": "style", "shot": "style", "perspective": "style", "mood": "style",
    "lighting": "style", "art": "style", "artistic": "style", "vibe": "style", "cinematography": "style",
    "scene": "scene", "setting": "scene", "background": "scene", "place": "scene", "location": "scene",
    "environment": "scene", "landscape": "scene", "weather": "scene",
    "text": "text", "writing": "text", "typography": "text", "caption": "text",
}
_WORD = re.compile(r"[a-z]+")


def normalise_tag(raw: str | None) -> str:
    """The vocabulary tag for a keyword type as written (``"spatial relation"`` → ``spatial``); ``other`` if none fits."""
    text = (raw or "").strip().lower().replace("_", " ").replace("-", " ")
    if text in TAGS:
        return text
    words = _WORD.findall(text)
    # "temporal relation" / "spatial relation": the qualifier decides, not the generic "relation"
    for word in words:
        tag = _SYNONYMS.get(word)
        if tag is not None and word not in ("relation", "relationship"):
            return tag
    for word in words:
        if word in _SYNONYMS:
            return _SYNONYMS[word]
    return "other"
