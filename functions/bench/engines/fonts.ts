// The Noto Sans TrueType files our renderer embeds (npm @expo-google-fonts/noto-sans): the peers use
// the same typeface, so that Greek and Cyrillic print and sizes compare like for like.
import { dirname } from "node:path";

export const NOTO_REGULAR = require.resolve("@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf");
export const NOTO_BOLD = require.resolve("@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf");
export const NOTO_DIRS = [dirname(NOTO_REGULAR), dirname(NOTO_BOLD)];
