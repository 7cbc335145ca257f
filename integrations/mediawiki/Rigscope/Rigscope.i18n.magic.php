<?php
/**
 * Magic words: the parser function {{#rigscope:}} and the `clip=`, `frame=` and `mesh=` parameters of
 * [[File:…]] for model files.
 *
 * @file
 */

$magicWords = [];

/** @phpcs-require-sorted-array */
$magicWords['en'] = [
	'rigscope' => [ 0, 'rigscope' ],
	'rigscope_clip' => [ 0, 'clip=$1' ],
	'rigscope_frame' => [ 0, 'frame=$1' ],
	'rigscope_mesh' => [ 0, 'mesh=$1' ],
];
