"""Rule-based form checking: phonetics, meter, rhyme and the seven fixed forms."""
