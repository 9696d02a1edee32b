"""Everything alea reads from outside, checked in one place: JSON text (`json_input`: one parser
with the limits "never a traceback" needs), images (`image_input`: headers checked before a
decode allocates memory), and the fields inputs are made of (`fields`: types, ranges, colours,
the seating), each refusal an `InputError` with a code from `scanner.errors.CODES` and the JSON
path of what was wrong."""

from scanner.inputs.fields import (
    expect_dice,
    expect_die,
    expect_int,
    expect_list,
    expect_number,
    expect_object,
    expect_player,
    expect_record,
    is_int,
    parse_seating,
)
from scanner.inputs.image_input import MAX_PIXELS, decode_image, image_size, read_image_file
from scanner.inputs.json_input import MAX_DEPTH, parse_json, read_json_file

__all__ = [
    "MAX_DEPTH",
    "MAX_PIXELS",
    "decode_image",
    "expect_dice",
    "expect_die",
    "expect_int",
    "expect_list",
    "expect_number",
    "expect_object",
    "expect_player",
    "expect_record",
    "image_size",
    "is_int",
    "parse_json",
    "parse_seating",
    "read_image_file",
    "read_json_file",
]
