"""Training: the detector (`detector`), the board detector (also `detector`), the face reader
(`face`) and the int8 detector (`quantize`), with their recipes (`recipes/*.yaml`, read by
`alea train`). The only part of alea that imports torch or ultralytics; nothing at run time
imports it."""
