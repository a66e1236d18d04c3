arg BASE
   from ${BASE} as Build
	workdir /a
from build
copy --from=BUILD /a /b
