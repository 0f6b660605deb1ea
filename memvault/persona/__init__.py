"""The persona layers beside the entity graph: attitudes (versioned preferences) and skills
(levels from experience that fades). See docs/persona.md."""
