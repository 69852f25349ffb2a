// askonce pages work without this script; it adds live updates.
'use strict';
