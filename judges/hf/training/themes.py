"""The world of the bundled judge's story corpus: themes and their vocabulary (the
characters who live in it: `arena.judges.hf.training.characters`).

Each theme owns a topical vocabulary (places, objects, creatures, adjectives, extra words)
and sentences that use it, so a handful of a theme's words tells the judge which words a
story will use. Every word listed in a theme is a lower-case single word.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Theme:
    """One topic of the corpus. Sentences may use the slots {name} {pro} {pos} {place}."""

    name: str
    town: str
    places: tuple[str, ...]
    objects: tuple[str, ...]
    creatures: tuple[str, ...]
    adjectives: tuple[str, ...]
    words: tuple[str, ...]
    scenery: tuple[str, ...]
    actions: tuple[str, ...]
    problems: tuple[str, ...]
    endings: tuple[str, ...]

    @property
    def vocabulary(self) -> tuple[str, ...]:
        """Every topical word of the theme, in a fixed order, without repeats."""
        seq = self.places + self.objects + self.creatures + self.adjectives + self.words
        return tuple(dict.fromkeys(seq))


def _t(*items: str) -> tuple[str, ...]:
    return tuple(items)


THEMES: tuple[Theme, ...] = (
    Theme(
        "sea",
        "Saltmere",
        places=_t("harbor", "lighthouse", "beach", "dock"),
        objects=_t("net", "anchor", "shell", "compass", "rope", "sail", "oar", "bottle"),
        creatures=_t("gull", "crab", "seal", "dolphin"),
        adjectives=_t("salty", "windy", "foamy", "sandy", "blue"),
        words=_t("tide", "wave", "boat", "fish", "sailor", "shore", "island", "storm"),
        scenery=_t(
            "The waves rolled onto the shore and pulled back again.",
            "Gulls cried above the boats, and the air smelled of salt.",
            "Far away, the light of the lighthouse turned slowly over the water.",
            "The tide was low, and small crabs ran across the wet sand.",
        ),
        actions=_t(
            "mended the torn net with a long rope",
            "rowed the little boat past the rocks",
            "raised the white sail against the wind",
            "counted the fish in the basket",
            "climbed the steps of the lighthouse",
            "threw the old anchor into the deep water",
        ),
        problems=_t(
            "a storm was coming from the island",
            "the boat had drifted away from the dock",
            "a seal was caught in an old fishing net",
        ),
        endings=_t(
            "The boat came home on the evening tide.",
            "The sea was calm again, and the gulls were quiet.",
            "That night the lighthouse shone over the harbor until morning.",
        ),
    ),
    Theme(
        "forest",
        "Oakhollow",
        places=_t("clearing", "woods", "thicket", "hollow"),
        objects=_t("acorn", "lantern", "basket", "axe", "mushroom", "feather", "twig", "map"),
        creatures=_t("owl", "fox", "deer", "squirrel"),
        adjectives=_t("mossy", "shady", "green", "tall", "quiet"),
        words=_t("tree", "oak", "pine", "leaf", "moss", "fern", "path", "branch"),
        scenery=_t(
            "Tall oaks and pines stood close together, and the light was green and soft.",
            "Moss covered the stones, and ferns grew along the narrow path.",
            "An owl watched from a high branch without making a sound.",
            "Leaves fell slowly and covered the path in red and gold.",
        ),
        actions=_t(
            "followed the narrow path between the pines",
            "gathered mushrooms and acorns in a basket",
            "climbed the old oak to look over the woods",
            "lit the lantern under the dark branches",
            "cut a fallen branch with a small axe",
            "marked the trees with a red ribbon so nobody would get lost",
        ),
        problems=_t(
            "a fox had taken the basket of acorns",
            "the path had disappeared under the leaves",
            "a young deer could not find its mother",
        ),
        endings=_t(
            "The owl called once, and the woods were still.",
            "They walked home through the ferns as the sun went down.",
            "Under the oak, the lantern burned until the morning.",
        ),
    ),
    Theme(
        "mountain",
        "Highcrag",
        places=_t("summit", "cliff", "pass", "cave"),
        objects=_t("rope", "boots", "pickaxe", "tent", "blanket", "whistle", "flag", "crystal"),
        creatures=_t("goat", "eagle", "marmot", "yak"),
        adjectives=_t("steep", "rocky", "cold", "high", "misty"),
        words=_t("peak", "rock", "stone", "ridge", "climb", "valley", "snow", "trail"),
        scenery=_t(
            "The trail climbed between grey rocks, and the valley lay far below.",
            "An eagle circled over the ridge in the thin cold air.",
            "Mist covered the peak, and the stones were wet and slippery.",
            "Goats jumped from rock to rock as if the cliff were flat ground.",
        ),
        actions=_t(
            "tied the rope around a big stone",
            "climbed the steep trail towards the summit",
            "put up the tent behind a rocky ridge",
            "blew the whistle so the others could hear",
            "carried the pickaxe up the narrow pass",
            "planted a small flag on the peak",
        ),
        problems=_t(
            "the mist was too thick to see the trail",
            "a rock had fallen across the pass",
            "a goat was stuck on a ledge of the cliff",
        ),
        endings=_t(
            "From the summit they could see the whole valley.",
            "They slept in the tent while the wind blew over the ridge.",
            "The eagle flew over the peak, and the mountain was quiet.",
        ),
    ),
    Theme(
        "snow",
        "Frostvale",
        places=_t("pond", "hill", "cabin", "slope"),
        objects=_t("scarf", "mittens", "sled", "snowball", "skates", "fire", "cocoa", "shovel"),
        creatures=_t("penguin", "hare", "wolf", "robin"),
        adjectives=_t("frozen", "white", "icy", "frosty", "snowy"),
        words=_t("snow", "ice", "winter", "frost", "snowman", "flake", "chimney", "storm"),
        scenery=_t(
            "Snow fell softly all night, and in the morning the world was white.",
            "The pond was frozen, and the ice shone like glass.",
            "Smoke rose from the chimney of the little cabin on the hill.",
            "Every branch was covered with frost, and the air bit the nose.",
        ),
        actions=_t(
            "built a snowman with a scarf and two stones for eyes",
            "pulled the sled to the top of the hill",
            "skated across the frozen pond",
            "shoveled the snow away from the cabin door",
            "made hot cocoa by the fire",
            "threw snowballs until their mittens were wet",
        ),
        problems=_t(
            "the snow had buried the path to the cabin",
            "the ice on the pond began to crack",
            "the fire in the cabin had gone out",
        ),
        endings=_t(
            "They drank cocoa by the fire while the snow kept falling.",
            "The snowman stood on the hill all winter.",
            "Outside the cabin, the frozen pond shone under the moon.",
        ),
    ),
    Theme(
        "garden",
        "Bloomfield",
        places=_t("garden", "greenhouse", "orchard", "meadow"),
        objects=_t("seeds", "spade", "hose", "pot", "ladder", "rake", "basket", "hat"),
        creatures=_t("bee", "butterfly", "snail", "worm"),
        adjectives=_t("sunny", "fresh", "sweet", "bright", "blooming"),
        words=_t("flower", "rose", "tulip", "apple", "soil", "bloom", "petal", "vegetable"),
        scenery=_t(
            "Roses and tulips bloomed along the fence, and bees moved from flower to flower.",
            "The soil was dark and soft after the rain.",
            "Apples hung heavy on the branches of the orchard.",
            "A butterfly landed on a petal and opened its bright wings.",
        ),
        actions=_t(
            "planted seeds in neat rows in the soil",
            "watered the tulips and the roses",
            "picked apples from the top of the ladder",
            "dug a new bed with a spade",
            "raked the leaves away from the vegetables",
            "carried pots of flowers into the greenhouse",
        ),
        problems=_t(
            "snails were eating the young vegetables",
            "the roses had not bloomed all summer",
            "a storm had knocked the apples to the ground",
        ),
        endings=_t(
            "By summer the garden was full of flowers.",
            "The bees hummed over the meadow until evening.",
            "They shared the apples with everyone on the street.",
        ),
    ),
    Theme(
        "market",
        "Coppergate",
        places=_t("market", "stall", "square", "shop"),
        objects=_t("coins", "scale", "cart", "cloth", "spices", "purse", "sign", "jar"),
        creatures=_t("donkey", "pigeon", "cat", "parrot"),
        adjectives=_t("busy", "crowded", "noisy", "colorful", "cheap"),
        words=_t("price", "trade", "merchant", "customer", "bargain", "goods", "sell", "buy"),
        scenery=_t(
            "The square was crowded, and merchants called out their prices.",
            "Every stall was covered with colorful cloth and jars of spices.",
            "A donkey pulled a cart full of goods between the stalls.",
            "Pigeons walked between the feet of the customers, looking for crumbs.",
        ),
        actions=_t(
            "weighed the spices on a brass scale",
            "counted the coins in the purse",
            "painted a new sign for the stall",
            "pushed the cart across the busy square",
            "made a good bargain with a merchant",
            "sold every jar of honey before noon",
        ),
        problems=_t(
            "a purse of coins had gone missing",
            "nobody wanted to buy anything from the little stall",
            "the donkey had run away with the cart",
        ),
        endings=_t(
            "When the market closed, the stall was empty and the purse was full.",
            "The square grew quiet, and the merchants went home.",
            "The parrot repeated the prices all the way home.",
        ),
    ),
    Theme(
        "castle",
        "Kingsreach",
        places=_t("castle", "tower", "hall", "dungeon"),
        objects=_t("crown", "sword", "shield", "key", "banner", "throne", "scroll", "armor"),
        creatures=_t("dragon", "horse", "raven", "hound"),
        adjectives=_t("royal", "ancient", "brave", "golden", "stone"),
        words=_t("king", "queen", "knight", "guard", "gate", "wall", "kingdom", "prince"),
        scenery=_t(
            "The castle stood on a hill, and banners flew from every tower.",
            "Guards walked along the wall and watched the gate.",
            "In the great hall, the golden throne shone in the light of the torches.",
            "A raven sat on the tower and looked down at the kingdom.",
        ),
        actions=_t(
            "polished the old sword and the shield",
            "rode a white horse through the castle gate",
            "unlocked the door of the tower with an iron key",
            "read the royal scroll to the knights",
            "carried the banner across the great hall",
            "climbed down the stairs into the dungeon",
        ),
        problems=_t(
            "the crown had been stolen from the throne",
            "a dragon had been seen near the kingdom",
            "the key to the tower was lost",
        ),
        endings=_t(
            "The queen thanked them in the great hall.",
            "The crown was back on the throne, and the kingdom was safe.",
            "The banners flew over the castle, and the gate was shut for the night.",
        ),
    ),
    Theme(
        "library",
        "Inkwell",
        places=_t("library", "archive", "study", "attic"),
        objects=_t("book", "candle", "ink", "pen", "letter", "shelf", "page", "spectacles"),
        creatures=_t("mouse", "moth", "cat", "owl"),
        adjectives=_t("dusty", "old", "silent", "secret", "careful"),
        words=_t("story", "word", "poem", "writer", "chapter", "paper", "librarian", "riddle"),
        scenery=_t(
            "Tall shelves full of dusty books reached all the way to the ceiling.",
            "It was so silent that you could hear every page turn.",
            "A candle burned on the desk beside a pot of ink.",
            "A small mouse ran along the shelf behind the old books.",
        ),
        actions=_t(
            "found an old book on the highest shelf",
            "wrote a letter with a pen and blue ink",
            "read the first chapter aloud by the candle",
            "put on a pair of spectacles to read the tiny words",
            "solved the riddle written on the last page",
            "sorted the books on the shelf by color",
        ),
        problems=_t(
            "a page was missing from the oldest book",
            "a secret letter had been hidden in the archive",
            "moths had eaten holes in the paper",
        ),
        endings=_t(
            "The librarian put the book back on the shelf and smiled.",
            "The candle went out, and the library was silent again.",
            "They wrote the whole story down so nobody would forget it.",
        ),
    ),
    Theme(
        "bakery",
        "Butterby",
        places=_t("bakery", "kitchen", "oven", "pantry"),
        objects=_t("bread", "flour", "cake", "pie", "apron", "spoon", "bowl", "honey"),
        creatures=_t("cat", "mouse", "hen", "dog"),
        adjectives=_t("warm", "sweet", "golden", "crusty", "sticky"),
        words=_t("dough", "sugar", "butter", "cookie", "baker", "jam", "recipe", "crumb"),
        scenery=_t(
            "The bakery smelled of warm bread and butter.",
            "Flour covered the table, and the oven glowed in the corner.",
            "Loaves of crusty bread cooled on the shelf by the window.",
            "The cat slept on a sack of flour near the warm oven.",
        ),
        actions=_t(
            "mixed flour, sugar and butter in a big bowl",
            "rolled the dough out on the table",
            "put the pie into the hot oven",
            "spread honey and jam on the warm bread",
            "tied on an apron and read the old recipe",
            "baked a tall cake with seven layers",
        ),
        problems=_t(
            "the oven would not get hot",
            "a mouse had eaten the last of the sugar",
            "the cake for the wedding had fallen on the floor",
        ),
        endings=_t(
            "Everyone in town came to taste the bread.",
            "They ate the cake together while it was still warm.",
            "The baker swept up the crumbs and locked the bakery door.",
        ),
    ),
    Theme(
        "farm",
        "Haybrook",
        places=_t("barn", "field", "stable", "farmyard"),
        objects=_t("tractor", "bucket", "fence", "hay", "pitchfork", "wagon", "gate", "eggs"),
        creatures=_t("cow", "pig", "sheep", "goose"),
        adjectives=_t("muddy", "early", "wide", "dusty", "busy"),
        words=_t("farmer", "wheat", "corn", "milk", "harvest", "straw", "calf", "tractor"),
        scenery=_t(
            "The rooster crowed, and the sun rose over the wide fields.",
            "Cows stood by the fence, waiting to be milked.",
            "The barn was full of hay, and the air smelled of straw.",
            "The wheat moved like water when the wind blew across the field.",
        ),
        actions=_t(
            "milked the cows and filled the bucket",
            "drove the old tractor into the field",
            "fixed the broken fence by the road",
            "collected eggs from the hen house",
            "stacked the hay in the barn with a pitchfork",
            "brought in the harvest before the rain",
        ),
        problems=_t(
            "the sheep had escaped through a hole in the fence",
            "the tractor had broken down in the middle of the field",
            "a calf was lost in the corn",
        ),
        endings=_t(
            "The harvest was safe in the barn before the rain came.",
            "The animals went to sleep in the warm straw.",
            "The farmer thanked them with a jug of fresh milk.",
        ),
    ),
    Theme(
        "stars",
        "Starfall",
        places=_t("observatory", "rooftop", "hilltop", "field"),
        objects=_t("telescope", "chart", "notebook", "blanket", "lamp", "rocket", "clock", "map"),
        creatures=_t("owl", "bat", "firefly", "cat"),
        adjectives=_t("dark", "bright", "distant", "clear", "silver"),
        words=_t("star", "moon", "planet", "comet", "sky", "night", "constellation", "meteor"),
        scenery=_t(
            "The sky was clear, and thousands of stars shone over the hill.",
            "The moon rose, round and silver, above the rooftops.",
            "Fireflies blinked in the grass like tiny stars.",
            "A comet moved slowly across the dark sky.",
        ),
        actions=_t(
            "pointed the telescope at the brightest star",
            "drew the constellation on a chart",
            "wrote the time of every meteor in a notebook",
            "spread a blanket on the hilltop to watch the sky",
            "built a small rocket out of paper and glue",
            "counted the planets that rose after midnight",
        ),
        problems=_t(
            "clouds covered the moon on the night of the comet",
            "the telescope had lost its lens",
            "a bright star had disappeared from the chart",
        ),
        endings=_t(
            "They watched the stars until the sky turned pale.",
            "The comet passed, and they wrote its name in the notebook.",
            "The moon shone over the observatory all night.",
        ),
    ),
    Theme(
        "desert",
        "Dunemere",
        places=_t("oasis", "dune", "canyon", "well"),
        objects=_t("jug", "tent", "scarf", "lamp", "compass", "rope", "map", "canteen"),
        creatures=_t("camel", "lizard", "scorpion", "falcon"),
        adjectives=_t("hot", "dry", "sandy", "golden", "endless"),
        words=_t("sand", "sun", "palm", "thirst", "caravan", "heat", "cactus", "shade"),
        scenery=_t(
            "The sand stretched to the edge of the sky, and the sun was hot.",
            "Palm trees gave a little shade around the blue water of the oasis.",
            "A lizard rested on a warm stone in the canyon.",
            "The wind moved the dunes a little every night.",
        ),
        actions=_t(
            "led the camels across the golden dunes",
            "filled the jug with water at the well",
            "followed the compass towards the oasis",
            "rested in the shade of a palm tree",
            "put up the tent before the sun went down",
            "walked with the caravan through the canyon",
        ),
        problems=_t(
            "the water was almost gone",
            "a sandstorm had covered the trail",
            "one of the camels had wandered off into the dunes",
        ),
        endings=_t(
            "At the oasis, they drank cold water under the palms.",
            "The caravan rested while the stars came out over the dunes.",
            "The wind covered their tracks, but they were safe.",
        ),
    ),
    Theme(
        "music",
        "Harmony",
        places=_t("stage", "theater", "bandstand", "hall"),
        objects=_t("violin", "drum", "flute", "piano", "trumpet", "guitar", "bow", "ticket"),
        creatures=_t("songbird", "cricket", "parrot", "cat"),
        adjectives=_t("loud", "soft", "gentle", "happy", "musical"),
        words=_t("song", "note", "melody", "concert", "band", "rhythm", "dance", "singer"),
        scenery=_t(
            "The band was tuning their instruments on the stage.",
            "A soft melody drifted out of the open window of the theater.",
            "The drum kept the rhythm, and people began to dance.",
            "A songbird on the roof seemed to join the song.",
        ),
        actions=_t(
            "practiced the violin every evening",
            "played a happy melody on the flute",
            "beat the drum in time with the band",
            "wrote a new song for the concert",
            "tuned the old piano note by note",
            "sang the last song in front of the whole town",
        ),
        problems=_t(
            "a string of the violin had snapped before the concert",
            "the singer had lost her voice",
            "the band had forgotten the words of the song",
        ),
        endings=_t(
            "When the last note ended, everyone clapped and cheered.",
            "They played until late, and the whole town danced.",
            "The melody stayed in their heads all the way home.",
        ),
    ),
    Theme(
        "workshop",
        "Gearwick",
        places=_t("workshop", "shed", "forge", "tower"),
        objects=_t("hammer", "clock", "gear", "wrench", "nail", "spring", "robot", "wheel"),
        creatures=_t("cat", "magpie", "mouse", "beetle"),
        adjectives=_t("clever", "rusty", "shiny", "tiny", "broken"),
        words=_t("machine", "tool", "inventor", "metal", "wire", "bolt", "engine", "screw"),
        scenery=_t(
            "The workshop was full of tools, wires and shiny gears.",
            "Every clock on the wall ticked at a slightly different time.",
            "Sparks flew from the forge as the hammer hit the metal.",
            "A magpie watched the shiny bolts from the windowsill.",
        ),
        actions=_t(
            "fixed the broken clock with a tiny spring",
            "built a small robot out of gears and wire",
            "oiled the rusty wheel of the machine",
            "tightened every bolt with a wrench",
            "hammered a nail into the wooden frame",
            "drew a plan for a new engine",
        ),
        problems=_t(
            "the big clock in the tower had stopped",
            "a magpie had stolen the smallest gear",
            "the machine made a terrible noise and would not start",
        ),
        endings=_t(
            "The clock in the tower began to tick again.",
            "The little robot rolled around the workshop, happy and shiny.",
            "The inventor hung the tools back on the wall and turned off the lamp.",
        ),
    ),
    Theme(
        "river",
        "Willowford",
        places=_t("river", "bridge", "mill", "bank"),
        objects=_t("raft", "line", "pole", "bucket", "boat", "paddle", "stone", "hat"),
        creatures=_t("frog", "duck", "otter", "heron"),
        adjectives=_t("muddy", "slow", "cool", "shallow", "rushing"),
        words=_t("water", "current", "willow", "reed", "stream", "splash", "fish", "waterfall"),
        scenery=_t(
            "The river moved slowly under the old stone bridge.",
            "Willows hung over the water, and reeds grew along the bank.",
            "A heron stood still in the shallow water, waiting for a fish.",
            "The wheel of the mill turned and splashed all day long.",
        ),
        actions=_t(
            "built a raft out of logs and rope",
            "paddled the boat across the river",
            "skipped flat stones over the water",
            "sat on the bank with a fishing pole",
            "waded across the shallow stream",
            "followed the current down to the waterfall",
        ),
        problems=_t(
            "the river had flooded the path to the mill",
            "the raft was drifting towards the waterfall",
            "a duckling was stuck in the reeds",
        ),
        endings=_t(
            "They sat on the bridge and watched the river go by.",
            "The ducks swam home in a line as the sun went down.",
            "The mill wheel kept turning, slow and steady, into the night.",
        ),
    ),
    Theme(
        "circus",
        "Jubilee",
        places=_t("tent", "ring", "wagon", "fairground"),
        objects=_t("ball", "hoop", "rope", "balloon", "drum", "costume", "hat", "ticket"),
        creatures=_t("elephant", "lion", "monkey", "pony"),
        adjectives=_t("funny", "amazing", "striped", "bright", "daring"),
        words=_t("clown", "acrobat", "juggler", "crowd", "trick", "show", "tightrope", "magic"),
        scenery=_t(
            "The big striped tent stood in the middle of the fairground.",
            "The crowd laughed as the clowns fell over each other.",
            "Far above the ring, an acrobat walked along the tightrope.",
            "Balloons of every color floated above the wagons.",
        ),
        actions=_t(
            "juggled five balls at once",
            "jumped through a hoop in the middle of the ring",
            "walked the tightrope without looking down",
            "taught the monkey a new trick",
            "sewed a bright costume for the show",
            "rode the pony around the ring",
        ),
        problems=_t(
            "the lion would not come out of its wagon",
            "the tightrope had come loose before the show",
            "the clown had lost his funny hat",
        ),
        endings=_t(
            "The crowd cheered, and the show was the best of the year.",
            "After the show, the elephants rested in the quiet tent.",
            "The balloons floated up into the night above the fairground.",
        ),
    ),
)

THEME_BY_NAME: dict[str, Theme] = {t.name: t for t in THEMES}
