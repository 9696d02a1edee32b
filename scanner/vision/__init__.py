"""Vision stages. Dice recognition: `detect.DiceDetector` (ONNX, no torch) -> `dice.Dice`,
colour from pixels in `color`, figures in `evaluate`."""
