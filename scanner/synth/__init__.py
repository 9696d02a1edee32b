"""Synthetic top-down table scenes with exact dice labels: `dice` draws one die, `scene` a
table through a camera, `dataset` writes YOLO datasets (`alea synth`)."""
