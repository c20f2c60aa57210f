"""Texts that hold no answer for any target (match report, poem, recipe, forecast, ...), for the no-answer documents."""

from __future__ import annotations

from random import Random

from text import MONTHS, WEEKDAYS

TEAMS = ["Riverside Rovers", "FC Nordstadt", "Harbour City", "Atlético Las Lomas", "Union Bergheim", "Lakeshore United"]
CITIES = ["Hamburg", "Lyon", "Valencia", "Leeds", "Graz", "Porto", "Gdańsk", "Turin"]


def match_report(rng: Random, lang: str) -> str:
    """A football match report: teams and a score, nobody reachable (never given to Event or ContactCard)."""
    home, away = rng.sample(TEAMS, 2)
    a, b = rng.randint(0, 4), rng.randint(0, 3)
    minute = rng.randint(55, 89)
    return (f"{home} {a}-{b} {away}\n\n"
            f"{home} {'took all three points' if a > b else 'could not find a winner' if a == b else 'slipped again'} "
            f"on a wet evening. The visitors pressed high from the first whistle and hit the post after twenty "
            f"minutes, but the home side grew into the game once their captain dropped deeper to collect the ball. "
            f"The decisive moment came in the {minute}th minute, when a corner was flicked on at the near post and "
            f"the substitute reacted fastest. {away} threw everyone forward in stoppage time without creating a "
            f"clear chance.\n\nBoth coaches praised the pitch staff, who had cleared standing water before kick-off. "
            f"The two sides meet again in the cup in the spring.")


def poem(rng: Random, lang: str) -> str:
    """A short original poem."""
    return rng.choice({
        "en": ["The Lighthouse Keeper's Winter\n\nThe lamp turns slow above the sleeping bay,\n"
               "it counts the waves the way the old count days;\nno ship tonight, no letter and no call,\n"
               "just salt that settles on the whitewashed wall.\n\nHe winds the clock, he trims the patient flame,\n"
               "he writes the weather down and not his name;\nand when the grey dawn lifts the fog away\n"
               "the sea forgets him, as it does each day.",
               "Allotment, October\n\nThe beans have given all they had to give,\n"
               "the rhubarb sulks beneath its tattered leaves;\na robin, bold as any landlord, lives\n"
               "between the compost and the garden sheaves.\n\nI dig the last potatoes from the cold,\n"
               "each one a small surprise the summer kept,\nand carry home, like something made of gold,\n"
               "a bag of earth-wrapped promises it slept."],
        "es": ["Canción del río\n\nEl río no tiene prisa,\nse lleva la tarde entera;\n"
               "en cada piedra una risa,\nen cada orilla una espera.\n\nPasa el molino dormido,\n"
               "pasa el puente de madera,\ny lo que nunca se ha ido\nse queda en la primavera.\n\n"
               "Si alguna vez me preguntas\npor qué vuelvo a la ribera,\nte diré: las aguas juntas\n"
               "saben cantar a su manera."],
    }[lang])


def recipe(rng: Random, lang: str) -> str:
    """A recipe: ingredients with quantities, no prices."""
    return rng.choice({
        "en": ["Lemon and Herb Lentil Salad (serves 4)\n\nIngredients\n- 250 g green lentils\n- 1 red onion, finely "
               "chopped\n- 2 lemons, zest and juice\n- 4 tbsp olive oil\n- a large bunch of parsley\n- 100 g feta\n"
               "- salt and black pepper\n\nMethod\n1. Rinse the lentils and simmer them in unsalted water for 20-25 "
               "minutes until just tender. Drain well.\n2. While they are still warm, stir in the onion, lemon zest, "
               "juice and oil. Season generously.\n3. Leave to cool for 15 minutes, then fold in the chopped parsley.\n"
               "4. Crumble the feta over the top just before serving.\n\nTip: the salad keeps for two days in the "
               "fridge; add the herbs and cheese on the day you eat it.",
               "Overnight Oats with Apple\n\nFor 2 jars: 100 g rolled oats, 250 ml milk, 2 tbsp yoghurt, 1 grated "
               "apple, a pinch of cinnamon and a spoonful of honey.\n\nMix everything in a bowl, divide between two "
               "jars and leave in the fridge overnight. In the morning, loosen with a splash of milk and top with "
               "toasted walnuts. Grated pear works just as well in winter, and a few raisins add sweetness without "
               "extra sugar."],
        "fr": ["Clafoutis aux cerises (6 personnes)\n\nIngrédients : 500 g de cerises, 3 œufs, 80 g de sucre, "
               "60 g de farine, 25 cl de lait, 1 sachet de sucre vanillé, une noix de beurre.\n\n"
               "Préchauffez le four à 180 °C. Beurrez un plat et disposez-y les cerises, sans les dénoyauter : "
               "elles garderont tout leur jus. Fouettez les œufs avec le sucre, ajoutez la farine puis le lait "
               "petit à petit. Versez la pâte sur les fruits et enfournez 35 minutes, jusqu'à ce que le dessus soit "
               "bien doré. Servez tiède, saupoudré de sucre glace."],
    }[lang])


def weather(rng: Random, lang: str) -> str:
    """A regional weather forecast."""
    city = rng.choice(CITIES)
    t = rng.randint(8, 24)
    days = rng.sample(range(7), 3)
    if lang == "de":
        wd = WEEKDAYS["de"]
        return (f"Wetter für {city} und Umgebung\n\nHeute ziehen von Westen dichte Wolken auf, am Nachmittag fällt "
                f"gebietsweise Regen. Die Höchstwerte liegen bei {t} Grad, nachts kühlt es auf {t - 7} Grad ab. "
                f"Der Wind weht mäßig aus Südwest, in Böen stark.\n\n{wd[days[0]]}: wechselhaft, {t + 1} Grad.\n"
                f"{wd[days[1]]}: freundlich mit viel Sonne, bis {t + 3} Grad.\n{wd[days[2]]}: erneut Schauer, "
                f"{t - 1} Grad.\n\nDer Pollenflug bleibt gering. Für das Wochenende deutet sich eine "
                "Wetterberuhigung an.")
    wd = WEEKDAYS["en"]
    return (f"Forecast for {city} and surrounding areas\n\nA band of cloud moves in from the west this morning, "
            f"bringing patchy rain by mid-afternoon. Highs of {t}°C, falling to {t - 7}°C overnight under clearing "
            f"skies. Winds moderate from the south-west, occasionally gusty on higher ground.\n\n"
            f"{wd[days[0]]}: bright spells and scattered showers, {t + 1}°C.\n{wd[days[1]]}: mostly dry, {t + 3}°C.\n"
            f"{wd[days[2]]}: turning unsettled again, {t - 1}°C.\n\nPollen count: low. UV index: moderate around "
            "midday.")


def news(rng: Random, lang: str) -> str:
    """A local news paragraph about a council decision."""
    city = rng.choice(CITIES)
    km = rng.randint(12, 40)
    return (f"{city} approves network of protected cycle lanes\n\nThe city council voted on Tuesday to build {km} "
            f"kilometres of protected cycle lanes over the next four years. Supporters say the plan will make "
            f"commuting safer and cut traffic in the old town, while shop owners on the main shopping street fear "
            f"losing parking spaces. The council said that loading zones would be kept and that the first section, "
            f"along the river, should open next year. A citizens' survey last autumn found that two thirds of "
            f"residents would cycle more if the routes felt safer.")


def minutes(rng: Random, lang: str) -> str:
    """Team meeting minutes with first names only and no next meeting."""
    month = MONTHS["en"][rng.randint(0, 11)]
    return (f"Minutes - product team weekly sync ({month})\n\nPresent: Jana, Malik, Sofia, Tom (notes)\n\n"
            "1. Release status: the mobile release slipped by one week because of the payment bug. Malik confirmed "
            "the fix is in review.\n2. Customer feedback: Sofia summarised 14 support tickets about the new search; "
            "most users miss the old filter for date ranges.\n3. Decisions: bring the date filter back behind a "
            "feature flag; pause the dark-mode work until the release is out.\n\nAction items\n- Malik: merge "
            "payment fix and tag release candidate\n- Sofia: draft a short survey for beta users\n- Jana: update "
            "the roadmap slide for the quarterly review")


def review(rng: Random, lang: str) -> str:
    """A product review without shop, date or price."""
    stars = rng.randint(2, 5)
    return (f"{'★' * stars}{'☆' * (5 - stars)}  Solid grinder, noisy motor\n\nI've used this burr grinder every "
            "morning for three months now. The grind is noticeably more even than my old blade grinder, and the "
            "espresso setting is fine enough for a cheap home machine. Cleaning is easy: the top burr lifts out without "
            "tools. My complaints: it is loud - my partner hears it two rooms away - and the plastic catch cup "
            "builds up static, so grounds stick to the sides. For filter coffee and French press it's great value; "
            "if you mainly drink espresso, look at something sturdier.")


def story(rng: Random, lang: str) -> str:
    """The opening of a short story."""
    name = rng.choice(["Ida", "Milo", "Noor", "Tavi"])
    return (f"The Key\n\n{name} found the key on the third step of the old library, where no key should have been. "
            "It was heavy and warm, as if someone had held it for a long time. None of the doors on the ground "
            "floor would take it, nor the cabinet with the maps, nor the little gate to the garden.\n\n"
            f"It was only at closing time, when the lights went out one row at a time, that {name} noticed the "
            "narrow door behind the atlases. The key turned without a sound. Inside there was nothing but a "
            "window, and through the window the same street, the same rain - except that the bakery on the corner, "
            "closed for ten years, had its lights on.")


def faq(rng: Random, lang: str) -> str:
    """A help-centre FAQ without contact addresses."""
    return ("How do I reset my password?\n\nOpen the app and tap \"Forgot password?\" on the sign-in screen. Enter the "
            "address you registered with; we will send you a link that is valid for 30 minutes. If nothing arrives, "
            "check your spam folder and make sure you typed the address exactly as you did when you signed up.\n\n"
            "Can I change my username?\n\nYes, once every 30 days under Settings > Profile. Your old username becomes "
            "available to others after two weeks.\n\nWhy was I signed out?\n\nFor your security, sessions end after "
            "90 days or when you change your password on another device.")


def encyclopedia(rng: Random, lang: str) -> str:
    """An encyclopedia paragraph."""
    return rng.choice([
        "Photosynthesis\n\nPhotosynthesis is the process by which green plants, algae and some bacteria convert light "
        "energy into chemical energy. In the chloroplasts, chlorophyll absorbs mainly blue and red light. The energy "
        "is used to split water molecules, releasing oxygen as a by-product, and to build sugars from carbon dioxide "
        "in a series of reactions known as the Calvin cycle. Almost all the oxygen in the atmosphere comes from "
        "photosynthesis, and the sugars it produces form the base of nearly every food chain on land.",
        "Glaciers\n\nA glacier is a persistent body of dense ice that moves under its own weight. It forms where snow "
        "accumulates faster than it melts over many years, slowly compacting into firn and then into ice. Glaciers "
        "shape the land by eroding valleys into a characteristic U-shape and by depositing moraines of rock and "
        "gravel. Today they cover about a tenth of the Earth's land surface and store roughly two thirds of its "
        "fresh water.",
    ])


# kind -> (writer, languages it comes in, targets it must not be given to: they could read an answer into it)
OFFTOPIC = {
    "match-report": (match_report, ("en",), {"Event", "ContactCard"}),
    "poem": (poem, ("en", "en", "es"), set()),
    "recipe": (recipe, ("en", "en", "fr"), set()),
    "weather": (weather, ("en", "en", "de"), set()),
    "news": (news, ("en",), {"Event", "ContactCard"}),
    "minutes": (minutes, ("en",), {"ContactCard"}),
    "review": (review, ("en",), set()),
    "story": (story, ("en",), {"ContactCard"}),
    "faq": (faq, ("en",), set()),
    "encyclopedia": (encyclopedia, ("en",), set()),
}
